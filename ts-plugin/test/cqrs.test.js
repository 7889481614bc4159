// NestJS CQRS: `commandBus.execute(new C(...))` / `queryBus.execute(...)` runs the handler class
// decorated `@CommandHandler(C)` / `@QueryHandler(C)`; its statements are the caller's
// transaction's, reached through `execute`.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, ENTITIES } = require("./helpers");

const HANDLERS = `import { CommandHandler, ICommandHandler, QueryHandler } from "@nestjs/cqrs";
import { InjectRepository } from "@nestjs/typeorm";
import { Repository } from "typeorm";
import { Account } from "./entities";
export class OpenAccount { constructor(readonly ownerId: number) {} }
export class FindAccount { constructor(readonly id: number) {} }
export class Unhandled { constructor(readonly id: number) {} }
@CommandHandler(OpenAccount)
export class OpenAccountHandler implements ICommandHandler<OpenAccount> {
  constructor(@InjectRepository(Account) private accounts: Repository<Account>) {}
  async execute(command: OpenAccount) { return this.accounts.save(this.accounts.create({ ownerId: command.ownerId, balance: 0 })); }
}
@QueryHandler(FindAccount)
export class FindAccountHandler {
  constructor(@InjectRepository(Account) private accounts: Repository<Account>) {}
  async execute(query: FindAccount) { return this.accounts.findOneBy({ id: query.id }); }
}
`;

function scan(body) {
  const ir = scanSources({
    "src/entities.ts": ENTITIES,
    "src/handlers.ts": HANDLERS,
    "src/service.ts": `import { CommandBus, QueryBus } from "@nestjs/cqrs";
import { Transactional } from "typeorm-transactional";
import { FindAccount, OpenAccount, Unhandled } from "./handlers";
export class Service {
  constructor(private commandBus: CommandBus, private queryBus: QueryBus) {}
  @Transactional()
  async run(id: number, ownerId: number) { ${body} }
}`,
  });
  assert.equal(ir.transactions.length, 1);
  return statements(ir.transactions[0]).map((s) => `${s.entity} ${s.kind} ${s.api} via ${s.via.join(">")}`);
}

test("command and query buses run the handler of the message's class", () => {
  assert.deepEqual(scan(`const found = await this.queryBus.execute(new FindAccount(id));
    if (!found) await this.commandBus.execute(new OpenAccount(ownerId));`), [
    "Account read findOneBy via src.handlers.FindAccountHandler.execute",
    "Account insert save via src.handlers.OpenAccountHandler.execute",
  ]);
});

test("a message passed in a variable is dispatched by its type; one without a handler runs nothing known", () => {
  assert.deepEqual(scan(`const command = new OpenAccount(ownerId); await this.commandBus.execute(command);`),
    ["Account insert save via src.handlers.OpenAccountHandler.execute"]);
  assert.deepEqual(scan(`await this.commandBus.execute(new Unhandled(id));`), []);
});
