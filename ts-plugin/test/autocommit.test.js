// Autocommit transactions (src/autocommit.ts): every ORM call site reached outside an explicit
// transaction is a single-statement transaction with boundary `autocommit`, once per call site;
// statements on a transaction's manager or inside its callback are not. And the default scope
// (src/scope.ts): tests, migrations, seeds and build output are skipped and counted.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, ENTITIES } = require("./helpers");

const scanService = (src, options) => scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": src }, options);
/** "line function: Entity kind api" of each autocommit transaction, in IR order. */
const auto = (ir) => ir.autocommit.map((t) => `${t.line} ${t.function.replace("src.service.", "")}: ` +
  statements(t).map((s) => `${s.entity} ${s.kind} ${s.api}`).join(", "));

const HELPER_APP = `import { DataSource, EntityManager, Repository } from "typeorm";
import { User, Account } from "./entities";
export class AccountStore {
  constructor(private ds: DataSource) {}
  /** with the default manager the statement runs in autocommit */
  async balance(id: number, manager: EntityManager = this.ds.manager) {
    return manager.findOneBy(Account, { id });
  }
  /** called only with a transaction's manager */
  async credit(manager: EntityManager, id: number, amount: number) {
    await manager.increment(Account, { id }, "balance", amount);
  }
}
export class Controller {
  constructor(private ds: DataSource, private store: AccountStore, private users: Repository<User>) {}
  async show(id: number) {
    const user = await this.users.findOneBy({ id });
    return this.store.balance(user.id);
  }
  async deposit(id: number, amount: number) {
    await this.ds.transaction(async (em) => {
      await this.store.balance(id, em);
      await this.store.credit(em, id, amount);
      await em.update(User, { id }, { name: "x" });
    });
  }
}
`;

test("a helper used inside and outside a transaction counts in both", () => {
  const ir = scanService(HELPER_APP);
  // inside: the explicit transaction walks the helper with its manager
  assert.deepEqual(ir.transactions.map((t) => statements(t).map((s) => `${s.entity} ${s.kind} ${s.api}`)), [
    ["Account read findOneBy", "Account write increment", "User write update"],
  ]);
  // outside: the helper's statement and the controller's own read, each its own transaction
  assert.deepEqual(auto(ir), [
    "7 AccountStore.balance: Account read findOneBy",
    "17 Controller.show: User read findOneBy",
  ]);
  const t = ir.autocommit[0];
  assert.equal(t.id, "src/service.ts:7:12:autocommit");
  assert.equal(t.boundary, "autocommit");
  assert.equal(t.end_line, 7);
  assert.deepEqual(t.options, {});
  assert.equal(t.wrapper, null);
  assert.deepEqual(statements(t).map((s) => [s.id, s.via.length]), [["s1", 0]]);
});

test("statements on a transaction's manager, in its callback or its query runner are not autocommit", () => {
  const ir = scanService(`import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export class S {
  constructor(private ds: DataSource) {}
  async viaRunner(id: number) {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      const u = await qr.manager.findOneBy(User, { id });
      if (!u) { await qr.commitTransaction(); return; }
      await qr.manager.update(User, { id }, { name: "y" });
      await qr.commitTransaction();
    } finally {
      await qr.release();
    }
  }
  async viaCallback(id: number) {
    await this.ds.transaction(async (em) => {
      await em.delete(User, { id });
      await this.ds.manager.findOneBy(User, { id });
    });
    await this.ds.manager.count(User);
  }
}`);
  assert.equal(ir.transactions.length, 2);
  // the escaped read inside the callback is an escaped-manager diagnostic, not an autocommit transaction
  assert.ok(ir.diagnostics.some((d) => d.code === "escaped-manager" && d.line === 21));
  assert.deepEqual(auto(ir), ["23 S.viaCallback: User read count"]);
});

test("@Transactional: REQUIRED methods and their callees are inside; SUPPORTS called outside is autocommit", () => {
  const ir = scanService(`import { Repository } from "typeorm";
import { Transactional, Propagation } from "typeorm-transactional";
import { User } from "./entities";
export class S {
  constructor(private users: Repository<User>) {}
  @Transactional()
  async rename(id: number) { await this.load(id); await this.users.update({ id }, { name: "n" }); }
  private async load(id: number) { return this.users.findOneBy({ id }); }
  @Transactional({ propagation: Propagation.SUPPORTS })
  async peek(id: number) { return this.users.findOneBy({ id }); }
  @Transactional({ propagation: Propagation.NOT_SUPPORTED })
  async report() { return this.users.count(); }
  async handler(id: number) { await this.rename(id); return this.peek(id); }
}`);
  assert.deepEqual(ir.transactions.map((t) => t.line), [6]);
  assert.deepEqual(auto(ir), ["10 S.peek: User read findOneBy", "12 S.report: User read count"]);
});

test("each call site once, in a deterministic order after the explicit transactions", () => {
  const src = `import { Repository } from "typeorm";
import { User } from "./entities";
export class S {
  constructor(private users: Repository<User>) {}
  async list(ids: number[]) {
    const load = (id: number) => this.users.findOneBy({ id });
    const a = await load(ids[0]);
    const b = await load(ids[1]);
    for (const id of ids) await this.users.update({ id }, { name: a.name + b.name });
    return Promise.all([this.users.count(), this.users.findBy({ email: "x" })]);
  }
}`;
  const ir = scanService(src);
  assert.deepEqual(auto(ir), [
    "6 S.list.load: User read findOneBy",
    "9 S.list: User write update",
    "10 S.list: User read count",
    "10 S.list: User read findBy",
  ]);
  assert.deepEqual(ir.autocommit.map((t) => t.id), [
    "src/service.ts:6:34:autocommit", "src/service.ts:9:33:autocommit", "src/service.ts:10:25:autocommit", "src/service.ts:10:45:autocommit",
  ]);
  // a value read by an earlier statement is known before the later one starts: an input
  const update = statements(ir.autocommit[1])[0];
  assert.ok(update.values.every((v) => v.sources.every((s) => s.kind !== "result" && !s.step)));
  const body = (text) => text.split("\n").slice(1).join("\n"); // the meta record names the temporary folder
  assert.equal(body(scanService(src).text), body(ir.text));
});

test("autocommit: false reports explicit transactions only", () => {
  const ir = scanService(HELPER_APP, { autocommit: false });
  assert.equal(ir.autocommit.length, 0);
  assert.equal(ir.transactions.length, 1);
});

const SCOPE_APP = {
  "src/entities.ts": ENTITIES,
  "src/users.service.ts": `import { DataSource } from "typeorm";
import { User } from "./entities";
export async function byEmail(ds: DataSource, email: string) { return ds.getRepository(User).findOneBy({ email }); }
`,
  "src/users.service.spec.ts": `import { DataSource } from "typeorm";
import { User } from "./entities";
export async function fixture(ds: DataSource) { await ds.transaction(async (m) => { await m.save(User, { name: "t" }); }); }
`,
  "src/__tests__/helpers.ts": `import { DataSource } from "typeorm";
import { User } from "../entities";
export async function wipe(ds: DataSource) { await ds.getRepository(User).clear(); }
`,
  "test/app.e2e-spec.ts": `export const x = 1;\n`,
  "src/migrations/1-init.ts": `import { MigrationInterface, QueryRunner } from "typeorm";
export class Init1 implements MigrationInterface {
  async up(q: QueryRunner) { await q.startTransaction(); await q.query("CREATE TABLE t (id int)"); await q.commitTransaction(); }
  async down(q: QueryRunner) { await q.query("DROP TABLE t"); }
}
`,
  "src/db/2-add-index.ts": `import { MigrationInterface, QueryRunner } from "typeorm";
export class AddIndex2 implements MigrationInterface {
  async up(q: QueryRunner) { await q.query("CREATE INDEX i ON t (id)"); }
  async down(q: QueryRunner) { await q.query("DROP INDEX i"); }
}
`,
  "src/seeds/users.ts": `import { DataSource } from "typeorm";
import { User } from "../entities";
export async function seed(ds: DataSource) { await ds.getRepository(User).insert({ name: "s" }); }
`,
  "lib/index.js": "exports.x = 1;\n",
  "lib/index.d.ts": "export declare const x: number;\n",
  "dist/users.service.ts": `export const compiled = true;\n`,
  "src/legacy/old.service.ts": `import { DataSource } from "typeorm";
import { User } from "../entities";
export async function old(ds: DataSource) { await ds.transaction(async (m) => { await m.delete(User, {}); }); }
`,
};

test("tests, migrations (by folder or MigrationInterface), seeds and build output are skipped and counted", () => {
  const ir = scanSources(SCOPE_APP);
  const files = new Set([...ir.transactions, ...ir.autocommit].map((t) => t.file));
  assert.deepEqual([...files].sort(), ["src/legacy/old.service.ts", "src/users.service.ts"]);
  const scope = ir.diagnostics.filter((d) => d.code === "default-scope");
  assert.equal(scope.length, 1);
  assert.equal(scope[0].severity, "info");
  assert.equal(scope[0].file, ".");
  assert.match(scope[0].message, /^7 TypeScript file\(s\) outside the default scope were skipped: 3 test, 2 migration, 1 seed, 1 build output/);
});

test("a lib/ folder of TypeScript sources is application code", () => {
  const ir = scanSources({
    "src/entities.ts": ENTITIES,
    "lib/users.ts": `import { DataSource } from "typeorm";
import { User } from "../src/entities";
export async function all(ds: DataSource) { return ds.getRepository(User).find(); }
`,
  });
  assert.deepEqual(ir.autocommit.map((t) => t.file), ["lib/users.ts"]);
  assert.ok(!ir.diagnostics.some((d) => d.code === "default-scope"));
});

test("the user's exclude is honoured on top of the default scope", () => {
  const ir = scanSources(SCOPE_APP, { exclude: ["legacy", "*.service.ts"] });
  assert.equal(ir.transactions.length + ir.autocommit.length, 0);
  // what the user excluded is the user's choice, not counted as skipped by default (dist/users.service.ts)
  assert.match(ir.diagnostics.find((d) => d.code === "default-scope").message, /^6 TypeScript file/);
});

test("calls into units are linked through imports, overloads and plain methods alike", () => {
  const audit = `import { DataSource } from "typeorm";
import { User } from "./entities";
export async function audit(ds: DataSource, id: number) {
  await ds.manager.update(User, { id }, { name: "audited" });
}
`;
  const service = `import { DataSource } from "typeorm";
import { User } from "./entities";
import { audit } from "./audit";
export class Users {
  constructor(private ds: DataSource) {}
  load(id: number): Promise<User | null>;
  load(name: string): Promise<User | null>;
  async load(key: number | string) {
    return this.ds.manager.findOneBy(User, typeof key === "number" ? { id: key } : { name: key });
  }
  async rename(id: number) {
    await this.ds.manager.update(User, { id }, { name: "renamed" });
  }
  async handle(id: number) {
    await this.ds.transaction(async () => {
      await this.load(id);
      await audit(this.ds, id);
    });
    await this.rename(id);
  }
}
`;
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/audit.ts": audit, "src/service.ts": service });
  // load and audit run only inside the transaction; rename is reached outside it
  assert.deepEqual(auto(ir), ["12 Users.rename: User write update"]);
});

test("a constructor is linked through `new`, a method of an untyped receiver by its name", () => {
  const service = `import { DataSource } from "typeorm";
import { User, Account } from "./entities";
export class Loader {
  constructor(ds: DataSource, id: number) { void ds.manager.findOneBy(User, { id }); }
}
export class Overloaded {
  constructor(ds: DataSource);
  constructor(ds: DataSource, id?: number) { void ds.manager.findOneBy(Account, { id }); }
}
export class Jobs {
  constructor(private ds: DataSource) {}
  async touch(id: number) { await this.ds.manager.update(User, { id }, { name: "touched" }); }
  async inside(id: number) {
    await this.ds.transaction(async () => { new Loader(this.ds, id); new Overloaded(this.ds); await this.touch(id); });
  }
  async outside(svc: any, id: number) { await svc.touch(id); }
}
`;
  const ir = scanService(service);
  // Loader's constructor and Overloaded's (through its overload) run only inside the
  // transaction; touch is also called on an untyped receiver outside it
  assert.deepEqual(auto(ir), ["12 Jobs.touch: User write update"]);
});

test("`new` of a class without a constructor of its own, and `super(...)`, are linked to the base class's constructor", () => {
  const service = `import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
abstract class Job {
  constructor(protected manager: EntityManager, id: number) { void manager.update(User, { id }, { name: "job" }); }
}
class NightlyJob extends Job {}
class LaterJob extends NightlyJob {}
abstract class Audited {
  constructor(manager: EntityManager, id: number) { void manager.increment(Account, { id }, "balance", 0); }
}
class AuditedJob extends Audited {
  constructor(manager: EntityManager, id: number) { super(manager, id); }
}
abstract class Report {
  constructor(ds: DataSource) { void ds.manager.count(Account); }
}
class DailyReport extends Report {}
export class Runner {
  constructor(private ds: DataSource) {}
  async inside(id: number) {
    await this.ds.transaction(async (m) => { new NightlyJob(m, id); new LaterJob(m, id); new AuditedJob(m, id); });
  }
  report() { return new DailyReport(this.ds); }
}
`;
  const ir = scanService(service);
  // Job's constructor runs only inside the transaction (through NightlyJob, which declares no
  // constructor, and LaterJob two classes down), Audited's too (AuditedJob's super call);
  // Report's runs outside, from Runner.report
  assert.deepEqual(auto(ir), ["15 Report.constructor: Account read count"]);
});

test("walkFiles: only the transactions of the given files are walked, each as a whole scan walks it", () => {
  const helper = `import { EntityManager } from "typeorm";
import { User } from "./entities";
export async function touch(em: EntityManager, id: number) {
  await em.update(User, { id }, { name: "touched" });
}
`;
  const orders = `import { DataSource } from "typeorm";
import { User } from "./entities";
import { touch } from "./helper";
export class Orders {
  constructor(private ds: DataSource) {}
  async place(id: number) {
    await this.ds.transaction(async (em) => {
      const user = await em.findOneBy(User, { id });
      await touch(em, user.id);
    });
  }
}
`;
  const users = `import { DataSource } from "typeorm";
import { User } from "./entities";
export class Users {
  constructor(private ds: DataSource) {}
  async remove(id: number) {
    await this.ds.transaction((em) => em.delete(User, { id }));
  }
}
`;
  const files = { "src/entities.ts": ENTITIES, "src/helper.ts": helper, "src/orders.ts": orders, "src/users.ts": users };
  const whole = scanSources(files, { autocommit: false });
  const only = scanSources(files, { autocommit: false, walkFiles: ["src/orders.ts"] });
  assert.deepEqual(whole.transactions.map((t) => t.id), ["src/orders.ts:7", "src/users.ts:6"]);
  assert.deepEqual(only.transactions, whole.transactions.filter((t) => t.file === "src/orders.ts"));
  assert.deepEqual(only.entities, whole.entities);
});
