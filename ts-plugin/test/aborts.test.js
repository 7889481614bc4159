// Reads that throw when they find nothing (`findOneOrFail`, `findOneByOrFail`, `getOneOrFail`)
// abort the transaction: the statements after them run only when a row was found, so they
// depend on the read (a branch on its result, as after `if (!row) throw`), also when the read
// is inside a helper; where they use the row already, that data dependency says it. An entity built before the transaction (`repo.create(...)`) and saved
// in it is inserted there, and its generated key flows into the rows that reference it.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, inTx, flatSteps } = require("./helpers");

test("statements after an OrFail read sit in a branch on its result", () => {
  const { tx } = onlyTx(inTx(`
      await em.findOneByOrFail(User, { email });
      await em.update(Account, { ownerId: id }, { frozen: true });
      await em.decrement(Account, { id }, "balance", 1);`));
  assert.equal(tx.steps.length, 2);
  const [read, branch] = tx.steps;
  assert.equal(read.api, "findOneByOrFail");
  assert.equal(branch.node, "branch");
  assert.deepEqual(branch.uses, [{ kind: "result", step: read.id }]);
  assert.deepEqual(branch.arms.map((a) => a.map((s) => s.api)), [[], ["update", "decrement"]]);
});

test("an OrFail read inside a helper makes the caller's later statements depend on it", () => {
  const { tx } = onlyTx(`import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
async function mustFind(em: EntityManager, id: number) { return em.getRepository(User).createQueryBuilder("u").where("u.id = :id", { id }).getOneOrFail(); }
export class Service {
  constructor(private ds: DataSource) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      await mustFind(em, id);
      await em.delete(Account, { id });
    });
  }
}
`);
  const branch = tx.steps.find((s) => s.node === "branch");
  assert.ok(branch, JSON.stringify(tx.steps));
  assert.deepEqual(branch.uses, [{ kind: "result", step: "s1" }]);
  assert.deepEqual(branch.arms[1].map((s) => `${s.entity} ${s.kind}`), ["Account delete"]);
});

test("where the rest uses the row (read-modify-write), that dependency says it: no branch", () => {
  const { tx } = onlyTx(inTx(`
      const a = await em.findOneOrFail(Account, { where: { id } });
      a.balance -= amount;
      await em.save(a);`));
  assert.deepEqual(tx.steps.map((s) => s.node), ["statement", "statement"]);
  assert.deepEqual(tx.steps[1].uses, [tx.steps[0].id]);
});

test("plain reads (findOneBy) do not abort: no branch", () => {
  const { tx } = onlyTx(inTx(`
      await em.findOneBy(User, { email });
      await em.delete(Account, { id });`));
  assert.deepEqual(tx.steps.map((s) => s.node), ["statement", "statement"]);
});

test("an entity created before the transaction and saved in it is an insert whose key later rows use", () => {
  const { tx } = onlyTx(`import { DataSource, Repository } from "typeorm";
import { User, Account } from "./entities";
export class Service {
  constructor(private ds: DataSource, private users: Repository<User>, private accounts: Repository<Account>) {}
  async run(email: string) {
    const user = this.users.create({ email, name: "n" });
    await this.ds.transaction(async (em) => {
      await em.save(user);
      await em.save(this.accounts.create({ owner: user, balance: 0 }));
    });
  }
}
`);
  const [userInsert, accountInsert] = flatSteps(tx);
  assert.equal(userInsert.kind, "insert");
  assert.equal(accountInsert.kind, "insert");
  const owner = accountInsert.values.find((v) => v.attribute === "owner");
  assert.ok(owner.sources.some((s) => s.kind === "generated" && s.step === userInsert.id), JSON.stringify(owner));
});

test("a helper that throws when its read found nothing makes the caller's later statements depend on it", () => {
  const helper = (guard) => `import { DataSource, EntityManager } from "typeorm";
import { User, Account } from "./entities";
async function mustFind(em: EntityManager, id: number) {
  const user = await em.findOneBy(User, { id });
  ${guard}
  return user;
}
export class Service {
  constructor(private ds: DataSource) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      await mustFind(em, id);
      await em.update(Account, { ownerId: id }, { frozen: true });
    });
  }
}
`;
  const { tx } = onlyTx(helper(`if (!user) { throw new Error("no user"); }`));
  const [read, branch] = tx.steps;
  assert.equal(read.api, "findOneBy");
  assert.equal(branch.node, "branch");
  assert.deepEqual(branch.uses, [{ kind: "result", step: read.id }]);
  assert.deepEqual(branch.arms.map((a) => a.map((s) => s.api)), [[], ["update"]]);
  // a guard that returns (no throw) lets the caller go on either way
  const quiet = onlyTx(helper(`if (!user) return undefined;`)).tx;
  assert.deepEqual(flatSteps(quiet).map((s) => s.api), ["findOneBy", "update"]);
  assert.ok(!quiet.steps.some((s) => s.node === "branch" && s.arms.some((a) => a.some((x) => x.api === "update"))));
});
