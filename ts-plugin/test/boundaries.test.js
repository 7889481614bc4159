// Transaction boundaries: every TypeORM form, the transaction line, options, wrappers, and
// the non-boundaries (other libraries' transaction(), SUPPORTS/NEVER, savepoints).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, summary, ENTITIES } = require("./helpers");

const scanService = (src) => scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": src });
const ids = (ir) => ir.transactions.map((t) => `${t.line} ${t.boundary}${t.wrapper ? " " + t.wrapper : ""}`);

test("transaction(cb) on DataSource, Connection, EntityManager, getManager, getConnection, queryRunner.manager", () => {
  const ir = scanService(`import { DataSource, Connection, EntityManager, getManager, getConnection } from "typeorm";
import { User } from "./entities";
export class S {
  constructor(private ds: DataSource, private conn: Connection, private em: EntityManager) {}
  async a(id: number) {
    await this.ds.transaction(async (m) => { await m.findOneBy(User, { id }); });
    await this.conn.transaction(async (m) => { await m.findOneBy(User, { id }); });
    await this.em.transaction("SERIALIZABLE", async (m) => { await m.findOneBy(User, { id }); });
    await getManager().transaction(async (m) => { await m.findOneBy(User, { id }); });
    await getConnection().transaction(async (m) => { await m.findOneBy(User, { id }); });
    await this.ds.manager.transaction(async (m) => { await m.findOneBy(User, { id }); });
    const qr = this.ds.createQueryRunner();
    await qr.manager.transaction(async (m) => { await m.findOneBy(User, { id }); });
    await this.ds
      .transaction(async (m) => { await m.findOneBy(User, { id }); });
  }
}`);
  assert.deepEqual(ids(ir), [6, 7, 8, 9, 10, 11, 13, 15].map((l) => `${l} transaction-callback`));
  assert.deepEqual(ir.transactions[2].options, { isolation: "SERIALIZABLE" });
  assert.equal(ir.transactions[0].function, "src.service.S.a");
  for (const tx of ir.transactions) assert.deepEqual(summary(tx), ["User read findOneBy"]);
});

test("callback given by reference is walked", () => {
  const ir = scanService(`import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export class S {
  constructor(private ds: DataSource) {}
  async a() { await this.ds.transaction(this.work.bind(this)); }
  private async work(m: EntityManager) { await m.delete(User, 1); }
}`);
  assert.deepEqual(ids(ir), ["5 transaction-callback"]);
  assert.deepEqual(summary(ir.transactions[0]), ["User delete delete"]);
});

test("QueryRunner: startTransaction .. commit, statements outside are not part of it", () => {
  const ir = scanService(`import { DataSource } from "typeorm";
import { User } from "./entities";
export async function run(ds: DataSource, id: number) {
  const qr = ds.createQueryRunner();
  await qr.connect();
  const before = await qr.manager.findOneBy(User, { id });
  await qr.startTransaction("READ COMMITTED");
  try {
    const u = await qr.manager.findOneBy(User, { id: before!.id });
    if (!u) {
      await qr.rollbackTransaction();
      return;
    }
    await qr.manager.update(User, u.id, { name: "x" });
    await qr.commitTransaction();
  } catch (e) {
    await qr.rollbackTransaction();
    throw e;
  } finally {
    await qr.release();
  }
  await qr.manager.delete(User, id);
}`);
  assert.deepEqual(ids(ir), ["7 query-runner"]);
  const tx = ir.transactions[0];
  assert.equal(tx.end_line, 15);
  assert.deepEqual(tx.options, { isolation: "READ COMMITTED" });
  assert.deepEqual(summary(tx), ["User read findOneBy", "User write update"]);
  // the read before the transaction is an input of it
  assert.deepEqual(statements(tx)[0].predicate.args[0].sources, [{ kind: "input", name: "before.id" }]);
});

test("legacy @Transaction with @TransactionManager and @TransactionRepository", () => {
  const ir = scanService(`import { EntityManager, Repository, Transaction, TransactionManager, TransactionRepository } from "typeorm";
import { User, Account } from "./entities";
export class S {
  @Transaction()
  async a(@TransactionManager() m: EntityManager, @TransactionRepository(Account) accounts: Repository<Account>, id: number) {
    await m.findOneBy(User, { id });
    await accounts.delete({ id });
  }
}`);
  assert.deepEqual(ids(ir), ["4 transaction-decorator"]);
  assert.deepEqual(summary(ir.transactions[0]), ["User read findOneBy", "Account delete delete"]);
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "escaped-manager"), []);
});

test("typeorm-transactional: @Transactional propagation and runInTransaction", () => {
  const ir = scanService(`import { Repository } from "typeorm";
import { Transactional, Propagation, runInTransaction } from "typeorm-transactional";
import { User } from "./entities";
export class S {
  constructor(private users: Repository<User>) {}
  @Transactional()
  async outer(id: number) {
    await this.users.findOneBy({ id });
    await this.joins(id);
    await this.separate(id);
    await this.never(id);
  }
  @Transactional({ propagation: Propagation.SUPPORTS })
  async joins(id: number) { await this.users.update(id, { name: "j" }); }
  @Transactional({ propagation: Propagation.REQUIRES_NEW, isolationLevel: "SERIALIZABLE" })
  async separate(id: number) { await this.users.delete(id); }
  @Transactional({ propagation: Propagation.NEVER })
  async never(id: number) { await this.users.count(); }
  async fn(id: number) {
    await runInTransaction(async () => { await this.users.findOneBy({ id }); }, { propagation: Propagation.NESTED });
  }
}`);
  assert.deepEqual(ids(ir), ["6 transactional-decorator", "15 transactional-decorator", "20 transaction-callback"]);
  assert.deepEqual(summary(ir.transactions[0]), ["User read findOneBy", "User write update"]);
  assert.deepEqual(ir.transactions[1].options, { propagation: "REQUIRES_NEW", isolation: "SERIALIZABLE" });
  assert.deepEqual(ir.transactions[2].options, { library: "typeorm-transactional", propagation: "NESTED" });
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "escaped-manager"), []);
});

test("nested transaction on the same manager is part of the outer one", () => {
  const ir = scanService(`import { DataSource } from "typeorm";
import { User } from "./entities";
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => {
    await em.findOneBy(User, { id });
    await em.transaction(async (inner) => { await inner.delete(User, id); });
  });
}`);
  assert.deepEqual(ids(ir), ["4 transaction-callback"]);
  assert.deepEqual(summary(ir.transactions[0]), ["User read findOneBy", "User delete delete"]);
});

test("the project's own wrappers: reported at each call site with `wrapper`", () => {
  const ir = scanService(`import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export class Tx {
  constructor(private ds: DataSource) {}
  run<T>(fn: (em: EntityManager) => Promise<T>, outer?: EntityManager): Promise<T> {
    if (outer) return fn(outer);
    return this.ds.transaction(fn);
  }
  async withRunner<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    await qr.startTransaction();
    try { const r = await fn(qr.manager); await qr.commitTransaction(); return r; }
    finally { await qr.release(); }
  }
}
export class S {
  constructor(private tx: Tx) {}
  async a(id: number) {
    await this.tx.run(async (em) => {
      await em.findOneBy(User, { id });
      await this.tx.run(async (inner) => { await inner.delete(User, id); }, em);
    });
    await this.tx.withRunner(async (em) => em.update(User, id, { name: "r" }));
  }
}`);
  assert.deepEqual(ids(ir), ["19 transaction-callback src.service.Tx.run", "23 query-runner src.service.Tx.withRunner"]);
  assert.deepEqual(summary(ir.transactions[0]), ["User read findOneBy", "User delete delete"]);
  assert.deepEqual(summary(ir.transactions[1]), ["User write update"]);
});

test("not boundaries: other libraries' and the app's own transaction()", () => {
  const ir = scanService(`import { Knex } from "knex";
import { PrismaClient } from "@prisma/client";
class Bank { transaction(fn: (x: number) => void) { fn(1); } }
export async function run(db: Knex, bank: Bank, prisma: PrismaClient, anything: any) {
  bank.transaction((x) => x + 1);
  await db.transaction(async (trx) => { await trx("users").insert({}); });
  await prisma.$transaction(async (tx) => tx.user.findMany());
  await anything.transaction(async (m: any) => m.save({}));
}`);
  // knex/prisma are not installed (their types are unknown): their origin rules them out;
  // an untyped receiver with a callback is taken as TypeORM's
  assert.deepEqual(ids(ir), ["8 transaction-callback"]);
});

test("runner factories: startTransaction() in a helper that returns the runner", () => {
  const ir = scanService(`import { DataSource, QueryRunner } from "typeorm";
import { User } from "./entities";
export class Db {
  constructor(private ds: DataSource) {}
  async begin(): Promise<QueryRunner> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    return qr;
  }
}
export class S {
  constructor(private db: Db) {}
  async a(id: number) {
    const pre = 1;
    const qr = await this.db.begin();
    try {
      await qr.manager.update(User, id, { name: "x" });
      await qr.commitTransaction();
    } catch (e) {
      await qr.rollbackTransaction();
    } finally {
      await qr.release();
    }
  }
}`);
  assert.deepEqual(ids(ir), ["16 query-runner src.service.Db.begin"]);
  assert.equal(ir.transactions[0].end_line, 19);
  assert.deepEqual(summary(ir.transactions[0]), ["User write update"]);
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "dynamic-boundary"), []);
});

test("a start committed elsewhere is a dynamic-boundary diagnostic, not a transaction", () => {
  const ir = scanService(`import { QueryRunner } from "typeorm";
export async function begin(qr: QueryRunner) { await qr.startTransaction(); }`);
  assert.deepEqual(ids(ir), []);
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "dynamic-boundary").map((d) => d.line), [2]);
});
