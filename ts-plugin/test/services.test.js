// Services cloned per transaction (`withTransaction(manager)` returning a copy bound to that
// manager) and services resolved from a container by name (awilix: `scope.resolve("orderService")`
// -> the class registered under that name, or by the camelCase convention, else unresolved).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, flatSteps, ENTITIES } = require("./helpers");

const BASE = `import { EntityManager, Repository } from "typeorm";
export abstract class TransactionBaseService {
  protected manager_: EntityManager;
  protected transactionManager_: EntityManager | undefined;
  constructor(protected readonly container: any) { this.manager_ = container.manager; }
  protected get activeManager_(): EntityManager { return this.transactionManager_ ?? this.manager_; }
  withTransaction(transactionManager?: EntityManager): this {
    if (!transactionManager) return this;
    const cloned = new (this.constructor as any)(this.container);
    cloned.transactionManager_ = transactionManager;
    return cloned;
  }
}
`;

const SERVICES = `import { Repository } from "typeorm";
import { TransactionBaseService } from "./base";
import { User, Account } from "./entities";
export class AccountService extends TransactionBaseService {
  protected accountRepository_: Repository<Account>;
  constructor(container: any) { super(container); this.accountRepository_ = container.accountRepository; }
  async freeze(id: number) {
    await this.activeManager_.update(Account, { id }, { frozen: true });
  }
}
export class UserService extends TransactionBaseService {
  protected accountService_: AccountService;
  constructor(container: any) { super(container); this.accountService_ = container.accountService; }
  async ban(id: number) {
    const u = await this.activeManager_.findOneByOrFail(User, { id });
    await this.accountService_.withTransaction(this.activeManager_).freeze(u.id);
  }
}
`;

const ROUTES = `import { DataSource } from "typeorm";
import { asClass, createContainer } from "awilix";
import { UserService, AccountService } from "./services";
const container = createContainer();
container.register({ usersSvc: asClass(UserService).singleton(), accountService: asClass(AccountService) });
export async function banUser(req: any, ds: DataSource) {
  const userService = req.scope.resolve("usersSvc");
  const accountService = req.scope.resolve("accountService");
  const audit = req.scope.resolve("auditTrail");
  await ds.transaction(async (manager) => {
    await userService.withTransaction(manager).ban(req.params.id);
    await accountService.freeze(req.params.id);
    await audit.withTransaction(manager).record(req.params.id);
  });
}
`;

test("clones bound to the manager run in the transaction; services resolved by name are followed", () => {
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/base.ts": BASE, "src/services.ts": SERVICES, "src/routes.ts": ROUTES });
  assert.equal(ir.transactions.length, 1);
  const steps = flatSteps(ir.transactions[0]).map((s) =>
    s.node === "statement" ? `statement ${s.entity} ${s.kind} ${s.via.map((v) => v.split(".").pop()).join(">")}` : `${s.node} ${s.reason} ${s.callee}`);
  assert.deepEqual(steps, [
    "statement User read ban",
    "statement Account write ban>freeze",
    "unresolved unresolved-receiver auditTrail.withTransaction",
    "unresolved unresolved-receiver auditTrail.record",
  ]);
  // not cloned: `accountService.freeze()` uses its own manager, outside the transaction
  assert.equal(ir.diagnostics.filter((d) => d.code === "escaped-manager").length, 1);
});
