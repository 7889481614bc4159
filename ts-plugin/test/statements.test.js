// Statements: Repository / EntityManager / TreeRepository / custom repositories / ActiveRecord,
// with the kind and entity of each. Valid cases (calls that are not statements) sit beside them.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, summary, statements, termSummary, inTx, ENTITIES } = require("./helpers");

test("repository and manager reads, writes, inserts, deletes", () => {
  const { tx } = onlyTx(inTx(`
      const repo = em.getRepository(User);
      await repo.find();
      await repo.findOneBy({ id });
      await repo.count({ where: { name: "x" } });
      await repo.exists({ where: { id } });
      await em.findOne(Account, { where: { id } });
      await em.findBy(Account, { balance: 1 });
      await em.insert(Account, { balance: amount });
      await em.update(Account, id, { balance: amount });
      await em.upsert(User, { email, name: "n" }, ["email"]);
      await em.increment(Account, { id }, "balance", 1);
      await em.decrement(Account, { id }, "balance", 1);
      await em.delete(Account, ids);
      await em.softDelete(User, { id });
      await repo.clear();
      await em.query("SELECT 1");`));
  assert.deepEqual(summary(tx), [
    "User read find", "User read findOneBy", "User read count", "User read exists", "Account read findOne", "Account read findBy",
    "Account insert insert", "Account write update", "User write upsert", "Account write increment", "Account write decrement",
    "Account delete delete", "User delete softDelete", "User delete clear", "null raw query",
  ]);
});

test("entity target forms: class, string name, table name, EntitySchema", () => {
  const ir = onlyTx({
    "src/entities.ts": ENTITIES,
    "src/schema.ts": `import { EntitySchema } from "typeorm";
export const Note = new EntitySchema<{ id: number; body: string }>({ name: "Note", tableName: "notes", columns: { id: { primary: true, type: Number }, body: { type: String } } });`,
    "src/service.ts": inTx(`
      await em.findOneBy(User, { id });
      await em.findOneBy("User", { id });
      await em.findOneBy("accounts", { id });
      await em.findOneBy(Note, { id });
      await em.getRepository(Note).findOneBy({ body: email });`, `import { Note } from "./schema";`),
  });
  assert.deepEqual(summary(ir.tx), ["User read findOneBy", "User read findOneBy", "Account read findOneBy", "Note read findOneBy", "Note read findOneBy"]);
  assert.deepEqual(termSummary(statements(ir.tx)[3]), ["pk eq input:id"]);
});

test("save is insert for new objects and write for loaded ones", () => {
  const { tx } = onlyTx(inTx(`
      const u = new User();
      u.email = email;
      await em.save(u);
      const a = em.create(Account, { balance: 0 });
      await em.getRepository(Account).save(a);
      await em.save(Account, { balance: amount });
      const loaded = await em.findOneByOrFail(Account, { id });
      loaded.balance = amount;
      await em.save(loaded);
      await em.save(User, { id: dto.id, name: dto.name });
      await em.remove(loaded);`));
  const st = statements(tx);
  assert.deepEqual(st.map((s) => `${s.entity} ${s.kind}`), [
    "User insert", "Account insert", "Account insert", "Account read", "Account write", "User write", "Account delete",
  ]);
  assert.equal(st[0].predicate, null);
  assert.deepEqual(st[0].values, [{ attribute: "email", sources: [{ kind: "input", name: "email" }] }]);
  // fetched by its key: save() is keyed by that input and writes the read row back (uses)
  assert.deepEqual(termSummary(st[4]), ["pk eq input:id"]);
  assert.deepEqual(st[4].uses, ["s4"]);
  assert.deepEqual(termSummary(st[5]), ["pk eq input:dto.id"]);
  assert.deepEqual(termSummary(st[6]), ["pk eq input:id"]);
  assert.deepEqual(st[6].uses, []);
});

test("save/remove of a row fetched by another attribute is keyed by the result", () => {
  const { tx } = onlyTx(inTx(`
      const u = await em.findOneByOrFail(User, { email });
      u.name = dto.name;
      await em.save(u);
      await em.remove(u);`));
  const st = statements(tx);
  assert.deepEqual(st.map(termSummary), [["email eq input:email"], ["pk eq result:s1"], ["pk eq result:s1"]]);
  assert.deepEqual(st.map((x) => x.uses), [[], ["s1"], []]);
});

test("find options: lock, 0.2 findOne(id), conditions object, relations", () => {
  const { tx } = onlyTx(inTx(`
      await em.findOne(Account, { where: { id }, lock: { mode: "pessimistic_write" } });
      await em.findOne(Account, { where: { id }, lock: { mode: "optimistic", version: 1 } });
      await em.getRepository(Account).findOne(id);
      await em.getRepository(User).findOne({ email });
      await em.find(Account, { relations: ["owner"], where: { owner: { id } } });
      await em.findByIds(Account, ids);`));
  const st = statements(tx);
  assert.deepEqual(st.map((s) => s.kind), ["lock", "read", "read", "read", "read", "read"]);
  assert.deepEqual(termSummary(st[2]), ["pk eq input:id"]);
  assert.deepEqual(termSummary(st[3]), ["email eq input:email"]);
  assert.deepEqual(termSummary(st[4]), ["owner eq input:id"]);
  assert.deepEqual(termSummary(st[5]), ["pk in input:ids"]);
});

test("calls that are not statements: create, merge, getRepository, hasId", () => {
  const { tx } = onlyTx(inTx(`
      const repo = em.getRepository(User);
      const u = repo.create({ email });
      repo.merge(u, { name: "x" });
      repo.hasId(u);
      em.getId(u);`));
  assert.deepEqual(statements(tx), []);
});

test("TreeRepository", () => {
  const { tx } = onlyTx({
    "src/entities.ts": ENTITIES + `
import { Tree, TreeParent, TreeChildren } from "typeorm";
@Entity() @Tree("closure-table")
export class Folder {
  @PrimaryGeneratedColumn() id: number;
  @TreeParent() parent: Folder;
  @TreeChildren() children: Folder[];
}`,
    "src/service.ts": inTx(`
      const tree = em.getTreeRepository(Folder);
      const root = await tree.findOneByOrFail({ id });
      await tree.findDescendants(root);
      await tree.findTrees();
      await tree.countAncestors(root);`, `import { Folder } from "./entities";`),
  });
  assert.deepEqual(summary(tx), ["Folder read findOneByOrFail", "Folder read findDescendants", "Folder read findTrees", "Folder read countAncestors"]);
  assert.deepEqual(termSummary(statements(tx)[1]), ["parent other result:s1"]);
  assert.deepEqual(termSummary(statements(tx)[2]), []);
});

test("custom repositories: class, extend(), @EntityRepository, getCustomRepository, withRepository", () => {
  const { ir } = onlyTx({
    "src/entities.ts": ENTITIES,
    "src/repos.ts": `import { DataSource, EntityRepository, Repository } from "typeorm";
import { User, Account } from "./entities";
export class UserRepository extends Repository<User> {
  byEmail(email: string) { return this.findOneBy({ email }); }
}
@EntityRepository(Account)
export class AccountRepository extends Repository<Account> {
  rich() { return this.find({ where: { balance: 100 } }); }
}`,
    "src/service.ts": `import { DataSource, Transaction, TransactionManager, EntityManager } from "typeorm";
import { UserRepository, AccountRepository } from "./repos";
import { User } from "./entities";
export class S {
  constructor(private ds: DataSource, private userRepo: UserRepository) {}
  async run(email: string) {
    await this.ds.transaction(async (em) => {
      await em.withRepository(this.userRepo).byEmail(email);
      await em.getCustomRepository(AccountRepository).rich();
      const ext = em.getRepository(User).extend({ named(n: string) { return this.findBy({ name: n }); } });
      await ext.named(email);
      await this.userRepo.byEmail(email);
    });
  }
}`,
  });
  const tx = ir.transactions[0];
  assert.deepEqual(summary(tx), ["User read findOneBy", "Account read find", "User read findBy"]);
  assert.deepEqual(statements(tx)[0].via, ["src.repos.UserRepository.byEmail"]);
  assert.equal(statements(tx)[0].file, "src/repos.ts");
  // the injected custom repository is not bound to the transaction
  assert.deepEqual(ir.diagnostics.filter((d) => d.code === "escaped-manager").map((d) => `${d.file}:${d.line}`), ["src/repos.ts:4"]);
});

test("ActiveRecord: statics and instance methods", () => {
  const { ir } = onlyTx({
    "src/entities.ts": `import { BaseEntity, Entity, PrimaryGeneratedColumn, Column } from "typeorm";
@Entity() export class Post extends BaseEntity { @PrimaryGeneratedColumn() id: number; @Column() title: string; }`,
    "src/service.ts": `import { Transactional } from "typeorm-transactional";
import { Post } from "./entities";
export class S {
  @Transactional()
  async run(id: number, title: string) {
    const p = await Post.findOneByOrFail({ id });
    p.title = title;
    await p.save();
    const q = Post.create({ title });
    await q.save();
    await Post.delete({ title });
  }
}`,
  });
  const tx = ir.transactions[0];
  assert.deepEqual(statements(tx).map((s) => `${s.entity} ${s.kind} ${s.api}`), [
    "Post read findOneByOrFail", "Post write save", "Post insert save", "Post delete delete",
  ]);
});

test("RelationQueryBuilder and lazy relations", () => {
  const { tx } = onlyTx({
    "src/entities.ts": `import { Entity, PrimaryGeneratedColumn, Column, ManyToOne, OneToMany } from "typeorm";
@Entity() export class Author { @PrimaryGeneratedColumn() id: number; @OneToMany(() => Book, (b) => b.author) books: Promise<Book[]>; }
@Entity() export class Book { @PrimaryGeneratedColumn() id: number; @ManyToOne(() => Author, (a) => a.books) author: Promise<Author>; @Column() title: string; }`,
    "src/service.ts": `import { DataSource } from "typeorm";
import { Author, Book } from "./entities";
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => {
    const a = await em.findOneByOrFail(Author, { id });
    const books = await a.books;
    await em.createQueryBuilder().relation(Author, "books").of(id).loadMany();
    await em.createQueryBuilder().relation(Book, "author").of(books[0]).set(id);
  });
}`,
  });
  const st = statements(tx);
  assert.deepEqual(st.map((s) => `${s.entity} ${s.kind} ${s.api}`), [
    "Author read findOneByOrFail", "Book read lazy:books", "Book read relation.loadMany", "Book write relation.set",
  ]);
  assert.deepEqual(termSummary(st[1]), ["author eq result:s1"]);
  assert.deepEqual(termSummary(st[3]), ["pk eq result:s2"]);
});
