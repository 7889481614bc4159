// QueryBuilder chains and condition strings; raw SQL through manager.query().
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, statements, termSummary, inTx, summary } = require("./helpers");
const { parseCondition, parseSql } = require("../dist/sql");
const { conditionOf } = require("../dist/querybuilders");
const { conditionPredicate } = require("../dist/predicates");

const run = (body) => statements(onlyTx(inTx(body)).tx);

test("select builders: where/andWhere/orWhere with parameters, joins, locks", () => {
  const st = run(`
      await em.getRepository(Account).createQueryBuilder("a").where("a.id = :id", { id }).getOne();
      await em.createQueryBuilder(Account, "a").where("a.balance > :min").andWhere("a.ownerId = :o").setParameters({ min: amount, o: id }).getMany();
      await em.getRepository(User).createQueryBuilder("u").where("u.email = :e", { e: email }).orWhere("u.id IN (:...ids)", { ids }).getCount();
      await em.getRepository(Account).createQueryBuilder("a").innerJoin("a.owner", "o").where("o.email = :email", { email }).setLock("pessimistic_write").getMany();
      await em.createQueryBuilder().select("u").from(User, "u").where("u.name LIKE :n", { n: "%x" }).getRawMany();
      await em.getRepository(User).createQueryBuilder("u").whereInIds(ids).getMany();`);
  assert.deepEqual(st.map((s) => `${s.entity} ${s.kind} ${s.api}`), [
    "Account read createQueryBuilder.getOne", "Account read createQueryBuilder.getMany", "User read createQueryBuilder.getCount",
    "Account lock createQueryBuilder.getMany", "User read createQueryBuilder.getRawMany", "User read createQueryBuilder.getMany",
  ]);
  assert.deepEqual(st.map(termSummary), [
    ["pk eq input:id"], ["balance range input:amount", "owner eq input:id"], ["email eq input:email", "pk in input:ids"],
    ["owner eq input:email"], ["name pattern constant"], ["pk in input:ids"],
  ]);
  assert.equal(st[2].predicate.bool, "or");
  assert.equal(st[3].predicate.args[0].lookup, "owner__email");
});

test("Brackets, conditional andWhere on a builder variable, unparsable conditions are dynamic", () => {
  const st = run(`
      const qb = em.getRepository(Account).createQueryBuilder("a").where("a.frozen = false");
      if (amount > 0) qb.andWhere("a.balance >= :amount", { amount });
      qb.andWhere(new Brackets((b) => { b.where("a.id = :id", { id }).orWhere("a.ownerId = :id"); }));
      await qb.getMany();
      await em.getRepository(Account).createQueryBuilder("a").where("a.balance > (SELECT AVG(balance) FROM accounts)").getMany();
      await em.getRepository(Account).createQueryBuilder("a").where(\`a.\${email} = 1\`).getMany();`);
  assert.deepEqual(termSummary(st[0]), ["frozen eq constant", "balance range input:amount", "pk eq input:id", "owner eq input:id"]);
  assert.equal(st[0].dynamic, false);
  assert.equal(st[1].dynamic, true);
  assert.equal(st[2].dynamic, true);
});

test("insert / update / delete / soft-delete builders", () => {
  const st = run(`
      await em.createQueryBuilder().insert().into(Account).values({ balance: amount }).execute();
      await em.createQueryBuilder().update(Account).set({ balance: () => "balance - 1" }).where("id = :id", { id }).execute();
      await em.getRepository(Account).createQueryBuilder().update().set({ frozen: true }).whereInIds(ids).execute();
      await em.createQueryBuilder().delete().from(User).where("email = :email", { email }).execute();
      await em.getRepository(User).createQueryBuilder().softDelete().where("id = :id", { id }).execute();`);
  assert.deepEqual(st.map((s) => `${s.entity} ${s.kind}`), ["Account insert", "Account write", "Account write", "User delete", "User delete"]);
  assert.equal(st[0].predicate, null);
  assert.deepEqual(st[0].values, [{ attribute: "balance", sources: [{ kind: "input", name: "amount" }] }]);
  assert.deepEqual(st[1].values, [{ attribute: "balance", sources: [{ kind: "expression" }] }]);
  assert.deepEqual(st.slice(1).map(termSummary), [["pk eq input:id"], ["pk in input:ids"], ["email eq input:email"], ["pk eq input:id"]]);
});

test("manager.query with simple SQL", () => {
  const st = run(`
      await em.query("SELECT * FROM accounts WHERE id = $1 FOR UPDATE", [id]);
      await em.query("UPDATE accounts SET balance = balance + $1 WHERE owner_id = $2", [amount, id]);
      await em.query("DELETE FROM \\"user\\" WHERE email = ?", [email]);
      await em.query("INSERT INTO accounts (balance, owner_id) VALUES ($1, $2)", [amount, id]);
      await em.query("SELECT * FROM accounts a JOIN \\"user\\" u ON u.id = a.owner_id WHERE u.email = $1", [email]);
      await em.query(dto.name);`);
  assert.deepEqual(st.map((s) => `${s.entity} ${s.kind} ${s.dynamic}`), [
    "Account raw false", "Account raw false", "User raw false", "Account raw false", "null raw true", "null raw true",
  ]);
  assert.deepEqual(st.slice(0, 3).map(termSummary), [["pk eq input:id"], ["owner eq input:id"], ["email eq input:email"]]);
  assert.deepEqual(st[1].values, [{ attribute: "balance", sources: [{ kind: "input", name: "amount" }, { kind: "expression" }] }]);
  assert.equal(st[3].predicate, null);
  assert.equal(st[0].sql, "SELECT * FROM accounts WHERE id = $1 FOR UPDATE");
});

test("condition parser", () => {
  assert.deepEqual(parseCondition("u.id = :id"), { type: "cmp", left: { type: "col", path: "u.id" }, op: "=", right: [{ type: "param", name: "id", spread: false }] });
  assert.equal(parseCondition("a = 1 AND (b > 2 OR c IS NOT NULL)").type, "and");
  assert.equal(parseCondition('"u"."email" ILIKE :q').op, "like");
  assert.equal(parseCondition("x IN (:...ids)").op, "in");
  assert.equal(parseCondition("x BETWEEN :a AND :b").op, "between");
  assert.equal(parseCondition("x = ANY(:ids)").op, "in");
  assert.equal(parseCondition("EXISTS (SELECT 1)"), null);
  assert.equal(parseCondition("x = "), null);
});

test("SQL statement parser", () => {
  assert.equal(parseSql("select * from orders o where o.id = $1").table, "orders");
  assert.equal(parseSql("UPDATE t SET a = a + 1, b = $2 WHERE id = $1 RETURNING *").assignments.length, 2);
  assert.equal(parseSql("DELETE FROM t").where, null);
  assert.equal(parseSql("INSERT INTO t (a, b) VALUES ($1, $2) ON CONFLICT DO NOTHING").assignments.length, 2);
  assert.equal(parseSql("CALL do_things($1)"), null);
  assert.equal(parseSql("SELECT pg_advisory_xact_lock(1)"), null);
  assert.equal(parseSql("WITH x AS (SELECT 1) SELECT * FROM x"), null);
});

test("a WHERE text is parsed once and its condition shared, unchanged by the predicates made from it", () => {
  const texts = ["a.id = :id", "u.email = :e OR u.id IN (:...ids)", "LOWER(u.name) LIKE :n AND NOT (u.deleted = true)", "a.id = :id ;; DROP", ""];
  for (const text of texts) {
    const shared = conditionOf(text);
    assert.deepEqual(shared, parseCondition(text), text);
    assert.equal(conditionOf(text), shared, `${text}: kept, not parsed again`);
    if (!shared) continue;
    const ctx = (alias) => ({ column: (path) => ({ attribute: `${alias}.${path}`, lookup: path }), param: (op) => [{ kind: "input", name: `${alias}:${op.name}` }] });
    const first = conditionPredicate(shared, ctx("x"));
    const second = conditionPredicate(shared, ctx("y"));
    assert.deepEqual(shared, parseCondition(text), `${text}: unchanged`);
    assert.deepEqual(first, conditionPredicate(parseCondition(text), ctx("x")));
    assert.deepEqual(second, conditionPredicate(parseCondition(text), ctx("y")));
  }
  // the same text in two builders: each statement's own alias and parameters
  const st = run(`
      await em.getRepository(Account).createQueryBuilder("a").where("a.id = :id", { id }).getOne();
      await em.getRepository(Account).createQueryBuilder("a").where("a.id = :id", { id: amount }).getOne();
      await em.getRepository(User).createQueryBuilder("u").innerJoin("u.accounts", "a").where("a.id = :id", { id }).getOne();`);
  assert.deepEqual(st.map(termSummary), [["pk eq input:id"], ["pk eq input:amount"], ["accounts eq input:id"]]);
});
