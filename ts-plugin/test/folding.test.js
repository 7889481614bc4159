// Constant folding of branch conditions at the call being inlined: an arm the call site can
// never take is not walked (a retry helper's sleep when no retries are asked for).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps, ENTITIES } = require("./helpers");

const HELPER = `
import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export interface Options { retries?: number; retryDelay?: number; channelId?: number }
export class Connection {
  async getOrThrow(em: EntityManager, id: number, options: Options = {}): Promise<User> {
    const { retries, retryDelay } = options;
    if (retries == null || retries <= 0) {
      return this.internal(em, id);
    } else {
      let err: any;
      const delay = Math.max(retryDelay || 25, 1);
      for (let attempt = 0; attempt < retries; attempt++) {
        try {
          return await this.internal(em, id);
        } catch (e) {
          err = e;
          if (attempt < retries - 1) await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
      throw err;
    }
  }
  async viaProperty(em: EntityManager, id: number, options: Options = {}) {
    if (options.retries === undefined || !options.retries) return this.internal(em, id);
    await new Promise((resolve) => setTimeout(resolve, 10));
    return this.internal(em, id);
  }
  async flag(em: EntityManager, id: number, wait?: boolean, label = "x") {
    const u = await this.internal(em, id);
    if (wait && label === "x") await new Promise((resolve) => setTimeout(resolve, 10));
    const name = wait ? "slow" : "fast";
    return u;
  }
  private internal(em: EntityManager, id: number) {
    return em.findOneByOrFail(User, { id });
  }
}
`;

function scan(body, params = "id: number, dto: { retries: number }") {
  const service = `
import { DataSource } from "typeorm";
import { User } from "./entities";
import { Connection } from "./connection";
export class Service {
  constructor(private ds: DataSource, private conn: Connection) {}
  async run(${params}) {
    await this.ds.transaction(async (em) => {
${body}
    });
  }
}
`;
  const { tx } = onlyTx({ "src/entities.ts": ENTITIES, "src/connection.ts": HELPER, "src/service.ts": service });
  const steps = flatSteps(tx);
  const branches = [];
  const walk = (list) => list.forEach((s) => {
    if (s.node === "branch") { branches.push(s); s.arms.forEach(walk); }
    if (s.node === "loop") walk(s.body);
  });
  walk(tx.steps);
  return { tx, sleeps: steps.filter((s) => s.node === "effect" && s.category === "sleep").length, reads: steps.filter((s) => s.node === "statement").length, branches };
}

test("folded: options parameter defaulted to {} and not passed (destructuring)", () => {
  const r = scan(`await this.conn.getOrThrow(em, id);`);
  assert.equal(r.sleeps, 0);
  assert.equal(r.reads, 1);
  assert.equal(r.branches.filter((b) => b.file === "src/connection.ts").length, 0);
});

test("folded: options.x read from the default, `=== undefined`, `!`, explicit undefined argument", () => {
  assert.equal(scan(`await this.conn.viaProperty(em, id);`).sleeps, 0);
  assert.equal(scan(`await this.conn.getOrThrow(em, id, undefined);`).sleeps, 0);
  assert.equal(scan(`await this.conn.getOrThrow(em, id, {});`).sleeps, 0);
  assert.equal(scan(`await this.conn.getOrThrow(em, id, { retryDelay: 5 });`).sleeps, 0);
});

test("folded: literal arguments with && and ternaries", () => {
  assert.equal(scan(`await this.conn.flag(em, id);`).sleeps, 0);
  assert.equal(scan(`await this.conn.flag(em, id, false);`).sleeps, 0);
  assert.equal(scan(`await this.conn.flag(em, id, true, "y");`).sleeps, 0);
  assert.equal(scan(`await this.conn.flag(em, id, true);`).sleeps, 1);
});

test("not folded: retries passed by the caller", () => {
  const r = scan(`await this.conn.getOrThrow(em, id, { retries: 3 });`);
  assert.equal(r.sleeps, 1);
  assert.equal(scan(`await this.conn.viaProperty(em, id, { retries: 3 });`).sleeps, 1);
});

test("not folded: values from inputs and query results", () => {
  const fromInput = scan(`await this.conn.getOrThrow(em, id, { retries: dto.retries });`);
  assert.equal(fromInput.sleeps, 1);
  assert.ok(fromInput.branches.some((b) => b.file === "src/connection.ts"));
  assert.equal(scan(`await this.conn.getOrThrow(em, id, dto);`).sleeps, 1);
  assert.equal(scan(`const u = await em.findOneByOrFail(User, { id }); await this.conn.getOrThrow(em, id, { retries: u.id });`).sleeps, 1);
  assert.equal(scan(`const u = await em.findOneByOrFail(User, { id }); await this.conn.flag(em, id, !!u);`).sleeps, 1);
});

test("not folded: variables written later (loops), members assigned on a branch", () => {
  assert.equal(scan(`
      let done = false;
      for (const x of [1, 2]) {
        if (done) await new Promise((resolve) => setTimeout(resolve, 10));
        done = true;
      }`).sleeps, 1);
  assert.equal(scan(`
      const o: { wait?: boolean } = {};
      if (id > 3) o.wait = true; else o.wait = false;
      if (o.wait) await new Promise((resolve) => setTimeout(resolve, 10));`).sleeps, 1);
  assert.equal(scan(`
      const o: { wait?: boolean } = {};
      Object.assign(o, dto);
      if (o.wait) await new Promise((resolve) => setTimeout(resolve, 10));`).sleeps, 1);
});

test("folded in the transaction body: constants and guard clauses", () => {
  const r = scan(`
      const WAIT = false;
      if (!WAIT) return;
      await new Promise((resolve) => setTimeout(resolve, 10));`);
  assert.equal(r.sleeps, 0);
  assert.equal(r.branches.length, 0);
  assert.equal(scan(`
      const n = 0;
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const u = n >= 1 ? await new Promise((resolve) => setTimeout(resolve, 10)) : null;`).sleeps, 0);
});
