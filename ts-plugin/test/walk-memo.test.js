// Replayed helper walks (src/walk-memo.ts) give the IR that walking every call again gives:
// the samples and every test folder are scanned both ways and compared byte for byte, and the
// cases that must not be replayed (a helper that changes its argument, literal arguments that
// fold branches differently, recursion) are checked on their own.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { scan } = require("../dist/scan");
const { WalkMemo } = require("../dist/walk-memo");
const { makeApp, withApp, ENTITIES, statements, sampleApps, irRecords } = require("./helpers");


function bothWays(dir, options = {}) {
  const memo = new WalkMemo();
  const replayed = scan(dir, { ...options, memo }).ir;
  const walked = scan(dir, { ...options, memo: null }).ir;
  return { replayed, walked, replays: memo.replays, size: memo.size };
}

for (const { name, dir } of sampleApps()) {
  test(`sample ${name}: replayed helper walks give the IR of walking each call`, () => {
    const r = bothWays(dir);
    assert.equal(r.replayed, r.walked);
  });
}

const SERVICE = `
import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
export class Helpers {
  async owner(em: EntityManager, id: number) {
    return em.findOneBy(User, { id });
  }
  async audit(em: EntityManager, user: User, flag: boolean) {
    if (flag) await em.save(Account, { owner: user, balance: 0 });
    return user;
  }
  async rename(em: EntityManager, user: User) {
    user.name = "renamed";
    return user;
  }
  async down(em: EntityManager, n: number): Promise<number> {
    if (n <= 0) return 0;
    await em.findOneBy(Account, { id: n });
    return this.down(em, n - 1);
  }
}
export class Service {
  constructor(private ds: DataSource, private h: Helpers) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      const a = await this.h.owner(em, id);
      const b = await this.h.owner(em, id);
      const c = await this.h.owner(em, id);
      await this.h.audit(em, a, true);
      await this.h.audit(em, a, false);
      await this.h.audit(em, b, true);
      await this.h.audit(em, c, true);
      const r1 = await this.h.rename(em, a);
      const r2 = await this.h.rename(em, a);
      await em.save(User, r2);
      await this.h.down(em, 3);
      await this.h.down(em, 3);
    });
  }
}
`;

test("a helper called again in the same context is replayed with fresh step ids and the same IR", () => {
  const dir = makeApp({ "src/entities.ts": ENTITIES, "src/service.ts": SERVICE });
  try {
    const r = bothWays(dir);
    assert.equal(r.replayed, r.walked);
    // a context is recorded when it comes again and replayed from its third call on: the third
    // owner() and audit(c, true), whose row differs from a's and b's only in its step
    assert.ok(r.replays >= 2, `replays: ${r.replays}`);
    const tx = irRecords(r.replayed).find((x) => x.type === "transaction");
    const st = statements(tx);
    // owner three times (three reads, distinct ids), audit(true) three times: three inserts,
    // audit(false): none
    assert.deepEqual(st.filter((s) => s.entity === "User" && s.kind === "read").length, 3);
    assert.deepEqual(st.filter((s) => s.entity === "Account" && s.kind === "insert").length, 3);
    const ids = st.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length);
    // the second audit(b) uses the second read's result, not the first one's
    const inserts = st.filter((s) => s.entity === "Account" && s.kind === "insert");
    const reads = st.filter((s) => s.entity === "User" && s.kind === "read");
    assert.notDeepEqual(JSON.stringify(inserts[0].values), JSON.stringify(inserts[1].values));
    assert.match(JSON.stringify(inserts[1].values), new RegExp(`"step":"${reads[1].id}"`));
    // the replayed audit(c) uses the third read's result
    assert.match(JSON.stringify(inserts[2].values), new RegExp(`"step":"${reads[2].id}"`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a deep chain of helpers is followed to the end without a depth bound, and a set depth still bounds it", () => {
  const chain = Array.from({ length: 12 }, (_, i) =>
    `export async function f${i}(em: EntityManager, id: number): Promise<any> { ${i === 11 ? "return em.findOneBy(User, { id });" : `return f${i + 1}(em, id);`} }`).join("\n");
  const src = `import { DataSource, EntityManager } from "typeorm";\nimport { User } from "./entities";\n${chain}\n` +
    `export async function run(ds: DataSource, id: number) { await ds.transaction(async (em) => { await f0(em, id); }); }\n`;
  const dir = makeApp({ "src/entities.ts": ENTITIES, "src/service.ts": src });
  try {
    const deep = scan(dir).ir;
    assert.doesNotMatch(deep, /depth-limit/);
    assert.match(deep, /"api":"findOneBy"/);
    const bounded = scan(dir, { depth: 6 }).ir;
    assert.match(bounded, /"reason":"depth-limit"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const RENAMED = `
import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
export class Helpers {
  async credit(em: EntityManager, user: User, amount: number) {
    const account = await em.findOneByOrFail(Account, { ownerId: user.id });
    account.balance = account.balance + amount;
    await em.save(account);
    return account;
  }
}
export class Service {
  constructor(private ds: DataSource, private h: Helpers) {}
  async pay(from: string) {
    await this.ds.transaction(async (em) => {
      const a = await em.findOneBy(User, { email: from });
      await this.h.credit(em, a, 5);
      await em.update(User, { email: from }, { name: "paid" });
    });
  }
  async refund(to: string) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(Account, { id: 1 });
      const b = await em.findOneBy(User, { email: to });
      await this.h.credit(em, b, 5);
      await em.update(User, { email: to }, { name: "refunded" });
    });
  }
  async rebate(to: string) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(Account, { id: 1 });
      await em.findOneBy(Account, { id: 2 });
      const c = await em.findOneBy(User, { email: to });
      await this.h.credit(em, c, 5);
      await em.update(User, { email: to }, { name: "rebated" });
    });
  }
}
`;

test("a helper given a row of another step is replayed with its ids renamed, and its failing reads added again", () => {
  const dir = makeApp({ "src/entities.ts": ENTITIES, "src/service.ts": RENAMED });
  try {
    const r = bothWays(dir);
    assert.equal(r.replayed, r.walked);
    // credit(em, c) in rebate differs from credit(em, a) in pay and credit(em, b) in refund
    // only in the step of its row: recorded at refund's call, replayed at rebate's
    assert.ok(r.replays >= 1, `replays: ${r.replays}`);
    const txs = irRecords(r.replayed).filter((x) => x.type === "transaction" && x.boundary !== "autocommit");
    const rebate = txs.find((t) => t.function.endsWith("rebate"));
    const st = statements(rebate);
    const user = st.find((s) => s.entity === "User" && s.kind === "read");
    const account = st.filter((s) => s.entity === "Account" && s.kind === "read")[2];
    // the helper's read uses rebate's user row (its step id renamed), and the update after
    // it runs only when that read found its row (the failing read, added again)
    assert.match(JSON.stringify(account.predicate), new RegExp(`"step":"${user.id}"`));
    assert.match(JSON.stringify(rebate.steps), new RegExp(`"node":"branch","uses":\\[\\{"kind":"result","step":"${account.id}"`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a helper's walk is recorded only when its context comes again, and replayed from then on", () => {
  const app = (calls) => `
import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export async function owner(em: EntityManager, id: number) {
  return em.findOneBy(User, { id });
}
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => {
${"    await owner(em, id);\n".repeat(calls)}  });
}
`;
  const seen = [];
  for (const calls of [1, 2, 3]) {
    withApp({ "src/entities.ts": ENTITIES, "src/service.ts": app(calls) }, (dir) => {
      const r = bothWays(dir, { autocommit: false });
      assert.equal(r.replayed, r.walked);
      seen.push([r.size, r.replays, statements(irRecords(r.replayed).find((x) => x.type === "transaction")).length]);
    });
  }
  // once: nothing kept; twice: kept at the second call; three times: the third is replayed
  assert.deepEqual(seen, [[0, 0, 1], [1, 0, 2], [1, 1, 3]]);
});

test("a large helper walk is recorded at the first call in its context and replayed at the second", () => {
  const body = Array.from({ length: 300 }, (_, i) => `  n = n + ${i} * 2;`).join("\n");
  const src = `
import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export async function big(em: EntityManager, id: number) {
  let n = 0;
${body}
  return em.findOneBy(User, { id });
}
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => {
    await big(em, id);
    await big(em, id);
  });
}
`;
  withApp({ "src/entities.ts": ENTITIES, "src/service.ts": src }, (dir) => {
    const r = bothWays(dir, { autocommit: false });
    assert.equal(r.replayed, r.walked);
    assert.equal(r.replays, 1);
    assert.equal(statements(irRecords(r.replayed).find((x) => x.type === "transaction")).length, 2);
  });
});

test("a helper is replayed after an unrelated failing read and in another loop: neither is part of its context", () => {
  const src = `
import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
export async function owner(em: EntityManager, id: number) {
  return em.findOneBy(User, { id });
}
export async function run(ds: DataSource, id: number, ids: number[]) {
  await ds.transaction(async (em) => {
    await owner(em, id);
    await em.findOneByOrFail(Account, { id: 1 });
    await owner(em, id);
    await owner(em, id);
    for (const i of ids) { await owner(em, id); }
    for (const j of ids) { await owner(em, id); }
    for (const k of ids) { await owner(em, id); }
  });
}
`;
  withApp({ "src/entities.ts": ENTITIES, "src/service.ts": src }, (dir) => {
    const r = bothWays(dir, { autocommit: false });
    assert.equal(r.replayed, r.walked);
    // the third call outside the loops and the call in the third loop are replayed; with the
    // failing read's id and each loop's node in the key, none was
    assert.equal(r.replays, 2);
    assert.equal(statements(irRecords(r.replayed).find((x) => x.type === "transaction")).length, 7);
  });
});

test("a helper guarding its argument row is not replayed where that row's read is already a failing one", () => {
  // check() adds its row's read to the failing reads (`if (!user) throw`) unless it is one
  // already: the rest of the caller then runs only when that read found its row. Whether the
  // row is failing is part of the helper's context; the IR equals walking every call.
  const src = `
import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
export async function check(em: EntityManager, user: User | null) {
  if (!user) throw new Error("no user");
  return user.id;
}
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => {
    const a = await em.findOneBy(User, { id });
    await check(em, a);
    await em.save(Account, { ownerId: id, balance: 0 });
    const b = await em.findOneByOrFail(User, { id: id + 1 });
    await check(em, b);
    await em.save(Account, { ownerId: id + 1, balance: 0 });
    const c = await em.findOneBy(User, { id: id + 2 });
    await check(em, c);
    await em.save(Account, { ownerId: id + 2, balance: 0 });
    const d = await em.findOneBy(User, { id: id + 3 });
    await check(em, d);
    await em.save(Account, { ownerId: id + 3, balance: 0 });
  });
}
`;
  withApp({ "src/entities.ts": ENTITIES, "src/service.ts": src }, (dir) => {
    const r = bothWays(dir, { autocommit: false });
    assert.equal(r.replayed, r.walked);
    // check(a), check(c), check(d) share a context (a row not failing yet): recorded at c,
    // replayed at d; check(b) on a failing row is another context
    assert.equal(r.replays, 1);
  });
});

test("a replay renames step ids only: other texts under the same keys stay as they are", () => {
  const { replay } = require("../dist/walk-memo");
  // A walk recorded with its own steps s2 and s3 (firstId 1, two ids) in a context holding s1.
  const rec = {
    steps: [{ id: "s2", kind: "read", uses: ["s1", "k2", "s1e0"] }, { id: "s3", kind: "write", uses: ["s2"] }],
    result: { id: "k2", step: "s3", insertStep: "t3" },
    diagnostics: [], firstId: 1, idCount: 2, nodes: 0, viaBase: 0, paths: new Map(), order: [1],
    failingReads: ["s2", "x3"],
  };
  const out = replay(rec, 10, [], [], [7]);
  assert.deepEqual(out.steps.map((s) => [s.id, s.uses]), [["s11", ["s7", "k2", "s1e0"]], ["s12", ["s11"]]]);
  assert.deepEqual(out.result, { id: "k2", step: "s12", insertStep: "t3" });
  assert.deepEqual(out.failingReads, ["s11", "x3"]);
  assert.equal(out.foreign, false);
});
