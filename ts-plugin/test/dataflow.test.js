// Data flow: value sources through await, destructuring, property access, loops and
// closures; branch/loop structure; interprocedural calls with their call chain.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, statements, termSummary, inTx, ENTITIES } = require("./helpers");

test("results flow through await, destructuring and property access", () => {
  const { tx } = onlyTx(inTx(`
      const { owner } = await em.findOneOrFail(Account, { where: { id }, relations: ["owner"] });
      const [first] = await em.findBy(Account, { ownerId: owner.id });
      await em.delete(Account, first.id);
      const { identifiers } = await em.insert(User, { email, name: dto.name });
      await em.update(Account, id, { ownerId: identifiers[0].id });`));
  const st = statements(tx);
  assert.deepEqual(termSummary(st[1]), ["owner eq result:s1"]);
  assert.deepEqual(termSummary(st[2]), ["pk eq result:s2"]);
  assert.deepEqual(st[3].values.map((v) => v.sources), [[{ kind: "input", name: "email" }], [{ kind: "input", name: "dto.name" }]]);
  assert.deepEqual(st[4].values, [{ attribute: "owner", sources: [{ kind: "generated", step: "s4" }] }]);
  assert.deepEqual(st[4].uses, []); // the dependency is in the value's sources
});

test("generated keys of saved objects", () => {
  const { tx } = onlyTx(inTx(`
      const u = em.create(User, { email });
      await em.save(u);
      await em.insert(Account, { owner: { id: u.id }, balance: 0 });
      const saved = await em.save(User, { email, name: "b" });
      await em.insert(Account, { ownerId: saved.id, balance: 0 });`));
  const st = statements(tx);
  assert.deepEqual(st[1].values[0], { attribute: "owner", sources: [{ kind: "generated", step: "s1" }] });
  assert.deepEqual(st[3].values[0], { attribute: "owner", sources: [{ kind: "generated", step: "s3" }] });
});

test("branches and loops carry the sources of their conditions", () => {
  const { tx } = onlyTx(inTx(`
      const acct = await em.findOneBy(Account, { id });
      if (acct && acct.balance > amount) {
        await em.update(Account, id, { frozen: true });
      } else {
        await em.delete(Account, id);
      }
      for (const i of ids) await em.delete(User, i);
      const rows = await em.find(Account);
      rows.forEach((r) => { void r; });
      for (const r of rows) await em.update(Account, r.id, { frozen: true });
      while (amount > 0) { await em.count(User); break; }`));
  const [branch, loop1, , loop2, loop3] = tx.steps.slice(1);
  assert.equal(branch.node, "branch");
  assert.deepEqual(branch.uses, [{ kind: "input", name: "amount" }, { kind: "result", step: "s1" }]);
  assert.equal(branch.arms.length, 2);
  assert.equal(loop1.node, "loop");
  assert.deepEqual(loop1.uses, [{ kind: "input", name: "ids" }]);
  assert.deepEqual(loop2.uses, [{ kind: "result", step: "s5" }]);
  assert.deepEqual(termSummary(loop2.body[0]), ["pk eq result:s5"]);
  assert.equal(loop3.node, "loop");
});

test("a guard clause makes the rest of the block its else arm", () => {
  const { tx } = onlyTx(inTx(`
      const u = await em.findOneBy(User, { id });
      if (!u) throw new Error("missing");
      await em.delete(User, id);`));
  assert.equal(tx.steps[1].node, "branch");
  assert.deepEqual(tx.steps[1].arms[0], []);
  assert.equal(tx.steps[1].arms[1][0].api, "delete");
});

test("ternaries and short-circuits that run statements are branches", () => {
  const { tx } = onlyTx(inTx(`
      const u = (await em.findOneBy(User, { email })) ?? (await em.save(User, { email, name: "n" }));
      await em.update(Account, id, { ownerId: u.id });`));
  assert.equal(tx.steps[1].node, "branch");
  assert.deepEqual(tx.steps[1].uses, [{ kind: "result", step: "s1" }]);
  assert.deepEqual(statements(tx)[2].values[0].sources.map((x) => x.step), ["s1", "s2"]);
});

test("closures: Promise.all over map, callbacks of helpers", () => {
  const { tx } = onlyTx(inTx(`
      await Promise.all(ids.map(async (i) => em.delete(Account, i)));
      const one = async (x: number) => em.findOneBy(User, { id: x });
      const u = await one(id);
      await em.update(User, u!.id, { name: "c" });`));
  assert.equal(tx.steps[0].node, "loop");
  assert.deepEqual(termSummary(tx.steps[0].body[0]), ["pk eq input:ids"]);
  // a row fetched by its primary key has that key
  assert.deepEqual(termSummary(statements(tx)[2]), ["pk eq input:id"]);
});

test("interprocedural: helpers and services with their call chain; manager passed or not", () => {
  const { ir } = onlyTx({
    "src/entities.ts": ENTITIES,
    "src/audit.ts": `import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export class Audit {
  constructor(private ds: DataSource) {}
  async touch(id: number, manager?: EntityManager) {
    const m = manager ?? this.ds.manager;
    await m.update(User, id, { name: "t" });
    return this.inner(m, id);
  }
  private async inner(m: EntityManager, id: number) { return m.findOneBy(User, { id }); }
}
export async function helper(em: EntityManager, email: string) { return em.findOneBy(User, { email }); }`,
    "src/service.ts": `import { DataSource } from "typeorm";
import { Audit, helper } from "./audit";
export class S {
  constructor(private ds: DataSource, private audit: Audit) {}
  async run(id: number, email: string) {
    await this.ds.transaction(async (em) => {
      const u = await helper(em, email);
      const again = await this.audit.touch(u!.id, em);
      await this.audit.touch(again!.id);
    });
  }
}`,
  });
  const tx = ir.transactions[0];
  const st = statements(tx);
  assert.deepEqual(st.map((s) => `${s.api} ${s.via.join(">")}`), [
    "findOneBy src.audit.helper",
    "update src.audit.Audit.touch",
    "findOneBy src.audit.Audit.touch>src.audit.Audit.inner",
  ]);
  assert.deepEqual(termSummary(st[1]), ["pk eq result:s1"]);
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "escaped-manager").map((d) => `${d.file}:${d.line}`), ["src/audit.ts:7", "src/audit.ts:10"]);
});

test("depth limit and recursion", () => {
  const src = {
    "src/entities.ts": ENTITIES,
    "src/service.ts": `import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
async function a(m: EntityManager, n: number): Promise<void> { await b(m, n); }
async function b(m: EntityManager, n: number): Promise<void> { await c(m, n); }
async function c(m: EntityManager, n: number): Promise<void> { await m.delete(User, n); if (n > 0) await c(m, n - 1); }
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => { await a(em, id); });
}`,
  };
  const deep = onlyTx(src).tx;
  assert.deepEqual(statements(deep).map((s) => s.via.length), [3]);
  const shallow = onlyTx(src, { depth: 2 });
  const unresolved = [];
  const walk = (steps) => steps.forEach((s) => (s.node === "unresolved" ? unresolved.push(s) : s.node === "branch" ? s.arms.forEach(walk) : s.node === "loop" ? walk(s.body) : null));
  walk(shallow.tx.steps);
  assert.deepEqual(unresolved.map((u) => `${u.callee} ${u.reason}`), ["src.service.c depth-limit"]);
  assert.ok(shallow.ir.diagnostics.some((d) => d.code === "depth-limit"));
});

test("transaction handles passed to code txscan cannot follow are unresolved steps", () => {
  const { tx } = onlyTx(inTx(`
      const handlers: Record<string, (m: EntityManager) => Promise<void>> = {};
      await handlers[dto.name](em);`));
  assert.equal(tx.steps[0].node, "unresolved");
});
