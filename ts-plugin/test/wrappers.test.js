// Application transaction wrappers that take a callback: a method that starts a transaction
// through a helper, runs its callback parameter, and commits (vendure's
// TransactionWrapper.executeInTransaction(ctx, work)), and methods that hand their callback on
// to it (TransactionalConnection.withTransaction(ctx?, work), with overloads). Each caller's
// callback is a transaction with `wrapper` set; inside a request-context transaction the
// wrapper joins it. In manual mode (`@Transaction("manual")`) the transaction starts at the
// app's `connection.startTransaction(ctx)`.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, ENTITIES } = require("./helpers");
const { CONTEXT, INTERCEPTOR, DECORATORS } = require("./request-context-fixture");

const WRAPPER = `import { DataSource, QueryRunner, EntityTarget, ObjectLiteral, Repository } from "typeorm";
import { RequestContext } from "./context";
export class TxWrapper {
  async executeInTransaction<T>(ctx: RequestContext, work: (ctx: RequestContext) => Promise<T>, ds: DataSource): Promise<T> {
    const qr = ctx.queryRunner ?? ds.createQueryRunner();
    await this.start(qr);
    const inner = new RequestContext(ctx.userId);
    inner.queryRunner = qr;
    try {
      const result = await work(inner);
      await qr.commitTransaction();
      return result;
    } catch (e) {
      await qr.rollbackTransaction();
      throw e;
    }
  }
  private async start(qr: QueryRunner) {
    async function attempt() { await qr.startTransaction(); }
    await attempt();
  }
}
export class TransactionalConnection {
  constructor(private dataSource: DataSource, private wrapper: TxWrapper) {}
  getRepository<T extends ObjectLiteral>(ctx: RequestContext | undefined, target: EntityTarget<T>): Repository<T> {
    if (ctx?.queryRunner) return ctx.queryRunner.manager.getRepository(target);
    return this.dataSource.getRepository(target);
  }
  async withTransaction<T>(work: (ctx: RequestContext) => Promise<T>): Promise<T>;
  async withTransaction<T>(ctx: RequestContext, work: (ctx: RequestContext) => Promise<T>): Promise<T>;
  async withTransaction<T>(ctxOrWork: RequestContext | ((ctx: RequestContext) => Promise<T>), maybeWork?: (ctx: RequestContext) => Promise<T>): Promise<T> {
    let ctx: RequestContext;
    let work: (ctx: RequestContext) => Promise<T>;
    if (ctxOrWork instanceof RequestContext) {
      ctx = ctxOrWork;
      work = maybeWork!;
    } else {
      ctx = new RequestContext(null);
      work = ctxOrWork;
    }
    return this.wrapper.executeInTransaction(ctx, work, this.dataSource);
  }
  async startTransaction(ctx: RequestContext) {
    if (ctx.queryRunner && !ctx.queryRunner.isTransactionActive) await ctx.queryRunner.startTransaction();
  }
}
`;

const SERVICE = `import { RequestContext } from "./context";
import { TransactionalConnection } from "./connection";
import { Transaction } from "./decorators";
import { User, Account } from "./entities";
export class UserService {
  constructor(private connection: TransactionalConnection) {}
  async rename(ctx: RequestContext, id: number, name: string) {
    return this.connection.withTransaction(ctx, async (inner) => {
      const u = await this.connection.getRepository(inner, User).findOneByOrFail({ id });
      u.name = name;
      await this.connection.getRepository(inner, User).save(u);
    });
  }
  async cleanup() {
    await this.connection.withTransaction(async (c) => {
      await this.connection.getRepository(c, Account).delete({ frozen: true });
    });
  }
  @Transaction("manual")
  async manual(ctx: RequestContext, id: number) {
    await this.connection.getRepository(ctx, User).findOneBy({ id });
    await this.connection.startTransaction(ctx);
    await this.connection.getRepository(ctx, Account).findOneBy({ id });
  }
  @Transaction()
  async outer(ctx: RequestContext, id: number) {
    await this.connection.getRepository(ctx, Account).findOneBy({ id });
    await this.rename(ctx, id, "x");
  }
}
`;

test("callers' callbacks of app wrappers (through helpers, overloads, chained) are transactions with wrapper set", () => {
  const ir = scanSources({
    "src/entities.ts": ENTITIES, "src/context.ts": CONTEXT, "src/connection.ts": WRAPPER, "src/interceptor.ts": INTERCEPTOR,
    "src/decorators.ts": DECORATORS, "src/service.ts": SERVICE,
  });
  const byFn = Object.fromEntries(ir.transactions.map((t) => [t.function.split(".").pop(), t]));
  assert.deepEqual(Object.keys(byFn).sort(), ["cleanup", "manual", "outer", "rename"]);
  assert.equal(byFn.rename.wrapper, "src.connection.TransactionalConnection.withTransaction");
  assert.deepEqual(statements(byFn.rename).map((s) => `${s.entity} ${s.kind} ${s.api}`), ["User read findOneByOrFail", "User write save"]);
  assert.deepEqual(statements(byFn.cleanup).map((s) => `${s.entity} ${s.kind} ${s.api}`), ["Account delete delete"]);
  // inside a request-context transaction the wrapper joins it
  assert.deepEqual(statements(byFn.outer).map((s) => `${s.entity} ${s.kind}`), ["Account read", "User read", "User write"]);
  // manual mode: the transaction starts at connection.startTransaction(ctx)
  assert.deepEqual(byFn.manual.options, { mode: "manual" });
  assert.deepEqual(statements(byFn.manual).map((s) => `${s.entity} ${s.kind}`), ["Account read"]);
  // the helper's start is each wrapper transaction's own, not a dynamic boundary
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "dynamic-boundary").map((d) => d.line), [44]); // startTransaction(ctx), started by the decorator
});

// A constructor can be a wrapper too: then `super(ds, work)` in a subclass is a call of it
// (once some wrapper has a name a call can be filtered by: Runner.run), and the callback it
// hands over is a transaction. (While every wrapper is a method or a function declaration,
// super calls are not resolved at all: boundaries.ts wrapperOf.)
const CONSTRUCTOR_WRAPPER = `import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
export class TxJob {
  constructor(ds: DataSource, work: (em: EntityManager) => Promise<void>) {
    void ds.transaction(work);
  }
}
export class RenameJob extends TxJob {
  constructor(ds: DataSource, id: number) {
    super(ds, async (em) => {
      const user = await em.findOneByOrFail(User, { id });
      user.email = "x";
      await em.save(user);
    });
  }
}
export class Runner {
  constructor(private ds: DataSource) {}
  run(work: (em: EntityManager) => Promise<void>) {
    return this.ds.transaction(work);
  }
}
export class PlainBase {
  constructor(public ds: DataSource) {}
}
export class Plain extends PlainBase {
  constructor(ds: DataSource) {
    super(ds);
  }
}`;

test("a constructor taking a callback into a transaction is a wrapper: super(...) hands it the callback", () => {
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": CONSTRUCTOR_WRAPPER });
  const tx = ir.transactions.filter((t) => t.boundary !== "autocommit");
  assert.deepEqual(tx.map((t) => [t.line, t.wrapper]), [[10, "src.service.TxJob.constructor"]]);
  assert.deepEqual(statements(tx[0]).map((s) => `${s.entity} ${s.kind} ${s.api}`), ["User read findOneByOrFail", "User write save"]);
});
