// Rows loaded by a key keep that key on their way to the write that uses them: through a
// promise chain (`.then((r) => r ?? undefined)`) in a find-or-throw helper, and through a
// member of a parameter object (`dto.row = row`). A remove/save of such a row is keyed by what
// the read was keyed by: the input id (inferable), or the read's result when the read was by
// another attribute (dependent).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, statements, termSummary } = require("./helpers");

function service(helpers, body, params = "id: number") {
  return `import { DataSource, EntityManager, QueryRunner } from "typeorm";
import { User, Account } from "./entities";
${helpers}
export class Service {
  constructor(private ds: DataSource) {}
  async run(${params}) { await this.ds.transaction(async (em) => { ${body} }); }
}
`;
}

const GET_OR_THROW = `
async function getOrThrow(em: EntityManager, id: number, options: { where?: object } = {}): Promise<Account> {
  const found = await em.getRepository(Account).findOne({ where: { ...(options.where || {}), id } }).then((r) => r ?? undefined);
  if (!found) throw new Error("not found");
  return found;
}`;

test("a row read by the input id through a promise chain is removed by that id", () => {
  const { tx } = onlyTx(service(GET_OR_THROW, `const a = await getOrThrow(em, id); await em.remove(a);`));
  const [read, remove] = statements(tx);
  assert.equal(`${read.entity} ${read.kind}`, "Account read");
  assert.deepEqual(termSummary(read), ["pk eq input:id"]);
  assert.equal(`${remove.entity} ${remove.kind} ${remove.api}`, "Account delete remove");
  assert.deepEqual(termSummary(remove), ["pk eq input:id"]);
});

test("then/catch callbacks run with what the promise resolves to; their statements depend on it", () => {
  const { tx } = onlyTx(service("", `await em.findOneBy(User, { email: "a@b" }).then((u) => em.update(Account, { ownerId: u!.id }, { frozen: true })).catch(() => undefined);`));
  const [read, update] = statements(tx);
  assert.equal(read.kind, "read");
  assert.equal(update.kind, "write");
  assert.deepEqual(termSummary(update), [`owner eq result:${read.id}`]);
});

test("a row assigned to a member of a parameter is that row when saved (keyed by the read's result)", () => {
  const helpers = `
class Users {
  async byEmail(email: string, qr: QueryRunner) { return await qr.manager.findOneBy(User, { email }); }
  async saveUser(data: Partial<User>, qr: QueryRunner) { return await qr.manager.save(User, data); }
}
const users = new Users();`;
  const src = `import { DataSource, QueryRunner } from "typeorm";
import { User } from "./entities";
${helpers}
export class Service {
  constructor(private ds: DataSource) {}
  async verify(data: { user: Partial<User> }) {
    const qr = this.ds.createQueryRunner();
    await qr.startTransaction();
    const user = await users.byEmail(data.user.email!, qr);
    if (!user) throw new Error("missing");
    data.user = user;
    data.user.name = "verified";
    data.user = await users.saveUser(data.user, qr);
    await qr.commitTransaction();
  }
}
`;
  const { tx } = onlyTx(src);
  const [read, save] = statements(tx);
  assert.deepEqual(termSummary(read), ["email eq input:data.user.email"]);
  assert.equal(`${save.entity} ${save.kind}`, "User write");
  assert.deepEqual(termSummary(save), [`pk eq result:${read.id}`]);
});

test("a member assigned from an input stays an input (only rows and results are tracked)", () => {
  const { tx } = onlyTx(service("", `dto.row = { id }; await em.update(Account, { id: dto.row.id }, { frozen: true });`, "id: number, dto: { row: { id: number } }"));
  const [update] = statements(tx);
  assert.deepEqual(termSummary(update), ["pk eq input:dto.row.id"]);
});
