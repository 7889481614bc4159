// Request-context transactions (vendure's pattern): an app-defined @Transaction() decorator
// applies an interceptor that starts the transaction and stores its runner in the request
// context; services reach it through `connection.getRepository(ctx, Entity)`.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, summary, ENTITIES } = require("./helpers");

const { CONTEXT, CONNECTION, INTERCEPTOR, DECORATORS } = require("./request-context-fixture");

const SERVICE = `import { Injectable } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import { Repository } from "typeorm";
import { RequestContext } from "./context";
import { TransactionalConnection } from "./connection";
import { User, Account } from "./entities";
@Injectable()
export class AccountService {
  constructor(private connection: TransactionalConnection, @InjectRepository(Account) private accounts: Repository<Account>) {}
  async credit(ctx: RequestContext, accountId: number, amount: number) {
    const account = await this.connection.getRepository(ctx, Account).findOneByOrFail({ id: accountId });
    await this.connection.getRepository(ctx, Account).update({ id: account.id }, { balance: account.balance + amount });
    const owner = await this.connection.findById(ctx, User, account.ownerId);
    await this.connection.getRepository(User).count();
    await this.accounts.findOneBy({ id: accountId });
    return owner;
  }
}
`;

const RESOLVER = `import { RequestContext } from "./context";
import { Transaction, Logged, TransactionLog } from "./decorators";
import { AccountService } from "./service";
export class AccountResolver {
  constructor(private service: AccountService) {}

  @Transaction()
  async credit(ctx: RequestContext, args: { id: number; amount: number }) {
    return this.service.credit(ctx, args.id, args.amount);
  }

  @Transaction("manual", "SERIALIZABLE")
  async creditSerializable(ctx: RequestContext, args: { id: number; amount: number }) {
    return this.service.credit(ctx, args.id, args.amount);
  }

  @Logged()
  async logged(ctx: RequestContext, args: { id: number; amount: number }) {
    return this.service.credit(ctx, args.id, args.amount);
  }

  @TransactionLog()
  async alsoLogged(ctx: RequestContext, args: { id: number; amount: number }) {
    return this.service.credit(ctx, args.id, args.amount);
  }
}
`;

const scanApp = () => scanSources({
  "src/entities.ts": ENTITIES, "src/context.ts": CONTEXT, "src/connection.ts": CONNECTION, "src/interceptor.ts": INTERCEPTOR,
  "src/decorators.ts": DECORATORS, "src/service.ts": SERVICE, "src/resolver.ts": RESOLVER,
});

test("an app decorator whose interceptor starts a transaction is a transaction-decorator boundary", () => {
  const ir = scanApp();
  const txs = ir.transactions.map((t) => `${t.file}:${t.line} ${t.boundary} ${t.wrapper} ${t.function}`);
  assert.deepEqual(txs, [
    "src/resolver.ts:7 transaction-decorator src.decorators.Transaction src.resolver.AccountResolver.credit",
    "src/resolver.ts:12 transaction-decorator src.decorators.Transaction src.resolver.AccountResolver.creditSerializable",
  ]);
  assert.deepEqual(ir.transactions[0].options, {});
  assert.deepEqual(ir.transactions[1].options, { mode: "manual", isolation: "SERIALIZABLE" });
  // decorators whose interceptors start nothing are not boundaries, whatever their name;
  // the helper's startTransaction() is accounted for by the decorated methods
  assert.equal(ir.diagnostics.filter((d) => d.code === "dynamic-boundary").length, 0);
});

test("getRepository(ctx, Entity) repositories are the transaction's, interprocedurally", () => {
  const ir = scanApp();
  const tx = ir.transactions[0];
  assert.deepEqual(summary(tx), ["Account read findOneByOrFail", "Account write update", "User read findOneBy"]);
  const [read, write, owner] = statements(tx);
  assert.deepEqual(read.via, ["src.service.AccountService.credit"]);
  assert.deepEqual(write.values[0].sources.map((s) => s.kind).sort(), ["input", "result"]);
  // the entity handed to the connection's helper as a value keeps its name
  assert.equal(owner.file, "src/connection.ts");
  assert.deepEqual(owner.via, ["src.service.AccountService.credit", "src.connection.TransactionalConnection.findById"]);
  // without a context (and through an injected repository) the statement escapes
  const escaped = ir.diagnostics.filter((d) => d.code === "escaped-manager" && d.file === "src/service.ts").map((d) => d.line);
  assert.deepEqual([...new Set(escaped)], [14, 15]);
});
