// Calls the walk cannot follow but that could run statements are `unresolved` steps with a
// reason code (the core marks the transaction incomplete): unresolved-receiver, dynamic-dispatch,
// depth-limit, budget. Values are tracked, not only types: an `any`-typed helper parameter given
// the transaction's manager runs its statements in the transaction.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps, inTx, summary } = require("./helpers");

const run = (body, extra = "", imports = "") => {
  const { tx } = onlyTx(inTx(body, imports) + extra);
  const steps = flatSteps(tx);
  return {
    statements: summary(tx),
    unresolved: steps.filter((s) => s.node === "unresolved").map((s) => `${s.reason} ${s.callee}`),
  };
};

const HELPERS = `
export async function rename(id: number, name: string, manager?: any) {
  const m = manager ?? getManagerSomehow();
  await m.update(User, { id }, { name });
}
export async function touch(u: User, db: any) {
  return db.save(u);
}
declare function getManagerSomehow(): any;
declare const store: any;
export interface Notifier { notify(id: number): Promise<void>; log(msg: string): void; }
export abstract class Audit { abstract record(em: EntityManager, id: number): Promise<void>; }
`;

test("an any-typed manager parameter is tracked by value: statements through it are the transaction's", () => {
  const r = run(`
      await rename(id, "x", em);
      const u = await em.findOneByOrFail(User, { id });
      await touch(u, em);`, HELPERS);
  assert.deepEqual(r.statements, ["User write update", "User read findOneByOrFail", "User write save"]);
  assert.deepEqual(r.unresolved, []);
});

test("an untyped receiver with an ORM method is unresolved-receiver; array-like calls and known values are not", () => {
  const r = run(`
      await rename(id, "x");
      await store.save({ id });
      const rows: any = [];
      rows.find((x: any) => x.id === id);
      const known: any = { save: (x: number) => x };
      known.save(1);
      await em.findOneBy(User, { id });`, HELPERS);
  assert.deepEqual(r.statements, ["User read findOneBy"]);
  assert.deepEqual(r.unresolved, ["unresolved-receiver m.update", "unresolved-receiver store.save"]);
});

test("a function value given the manager and an interface or abstract method are dynamic-dispatch", () => {
  const src = inTx(`
      await this.onSave(em);
      await this.notifier.notify(id);
      this.notifier.log("no promise: no statement the transaction waits for");
      await this.audit.record(em, id);`).replace(
    "async run(id: number,",
    "notifier!: Notifier; audit!: Audit; onSave!: (em: EntityManager) => Promise<void>;\n  async run(id: number,",
  ) + HELPERS;
  const steps = flatSteps(onlyTx(src).tx).filter((s) => s.node === "unresolved");
  assert.deepEqual(steps.map((s) => `${s.reason} ${s.callee}`), [
    "dynamic-dispatch this.onSave",
    "dynamic-dispatch src.service.notify",
    "dynamic-dispatch src.service.Audit.record",
  ]);
});

test("the depth limit is an unresolved step with reason depth-limit", () => {
  const chain = `
async function a(em: EntityManager, id: number) { await b(em, id); }
async function b(em: EntityManager, id: number) { await em.findOneBy(User, { id }); }`;
  const r = onlyTx(inTx(`await a(em, id);`) + chain, { depth: 1 });
  const steps = flatSteps(r.tx);
  assert.deepEqual(steps.map((s) => `${s.node} ${s.reason ?? s.api}`), ["unresolved depth-limit"]);
});
