// Predicates: where objects (literal and assembled in variables), nested relations, arrays as
// OR, FindOperators, criteria forms, and attribute normalisation (pk, join columns).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, statements, termSummary, inTx } = require("./helpers");

const preds = (body) => statements(onlyTx(inTx(body)).tx).map((s) => s.predicate);
const termsOf = (body) => statements(onlyTx(inTx(body)).tx).map(termSummary);

test("FindOperators map to IR operators", () => {
  assert.deepEqual(termsOf(`
      await em.findBy(Account, { id: In(ids) });
      await em.findBy(Account, { balance: MoreThan(amount) });
      await em.findBy(Account, { balance: LessThanOrEqual(5) });
      await em.findBy(Account, { balance: Between(1, amount) });
      await em.findBy(User, { email: Like("%@x.org") });
      await em.findBy(User, { email: ILike(email) });
      await em.findBy(User, { name: IsNull() });
      await em.findBy(Account, { id: Any(ids) });
      await em.findBy(User, { name: Raw((a) => a + " > 1") });`), [
    ["pk in input:ids"], ["balance range input:amount"], ["balance range constant"], ["balance range input:amount"],
    ["email pattern constant"], ["email pattern input:email"], ["name null constant"], ["pk in input:ids"], ["name other constant"],
  ]);
});

test("Not, And, Or build connectives", () => {
  const [p1, p2, p3] = preds(`
      await em.findBy(Account, { id: Not(id) });
      await em.findBy(Account, { balance: And(MoreThan(1), LessThan(9)) });
      await em.findBy(Account, { balance: Or(LessThan(0), MoreThan(amount)) });`);
  assert.deepEqual(p1, { bool: "and", args: [{ bool: "not", args: [{ attribute: "pk", lookup: "id", op: "eq", sources: [{ kind: "input", name: "id" }] }] }] });
  assert.equal(p2.args[0].bool, "and");
  assert.equal(p3.args[0].bool, "or");
});

test("where arrays are OR; nested relation objects give the relation attribute", () => {
  const [p1, p2] = preds(`
      await em.find(Account, { where: [{ id }, { owner: { email } }] });
      await em.find(Account, { where: { owner: { id }, ownerId: id, frozen: false } });`);
  assert.equal(p1.bool, "or");
  assert.deepEqual(p1.args[1], { bool: "and", args: [{ attribute: "owner", lookup: "owner__email", op: "eq", sources: [{ kind: "input", name: "email" }] }] });
  assert.deepEqual(p2.args.map((t) => `${t.attribute}/${t.lookup}`), ["owner/owner__id", "owner/ownerId", "frozen/frozen"]);
});

test("where objects built in variables, shorthand, spread", () => {
  const [p1, p2] = preds(`
      const where = { email };
      await em.findOneBy(User, where);
      const filter: any = dto;
      await em.findBy(User, { ...filter, id });`);
  assert.deepEqual(p1.args.map((t) => t.attribute), ["email"]);
  assert.deepEqual(p2.args.map((t) => t.attribute), ["pk"]);
  const st = statements(onlyTx(inTx(`
      const filter: any = dto;
      await em.findBy(User, { ...filter, id });
      await em.findBy(User, filter);`)).tx);
  assert.equal(st[0].dynamic, true);
  assert.equal(st[1].dynamic, true);
});

test("criteria forms of update/delete: id, id array, object", () => {
  assert.deepEqual(termsOf(`
      await em.update(Account, id, { balance: 1 });
      await em.delete(Account, ids);
      await em.delete(Account, [1, 2]);
      await em.update(Account, { ownerId: id }, { frozen: true });`), [
    ["pk eq input:id"], ["pk in input:ids"], ["pk in constant"], ["owner eq input:id"],
  ]);
});

test("update values, increment, raw expressions", () => {
  const st = statements(onlyTx(inTx(`
      await em.update(Account, id, { balance: () => "balance + 1", frozen: true });
      await em.increment(Account, { id }, "balance", amount);`)).tx);
  assert.deepEqual(st[0].values, [
    { attribute: "balance", sources: [{ kind: "expression" }] },
    { attribute: "frozen", sources: [{ kind: "constant" }] },
  ]);
  assert.deepEqual(st[1].values, [{ attribute: "balance", sources: [{ kind: "input", name: "amount" }, { kind: "expression" }] }]);
});

test("upsert is keyed by its conflict paths", () => {
  assert.deepEqual(termsOf(`
      await em.upsert(User, { email, name: "n" }, ["email"]);
      await em.getRepository(User).upsert([{ id, name: "n" }], { conflictPaths: ["id"] });`), [
    ["email eq input:email"], ["pk eq input:id"],
  ]);
});

test("find without where is every row; undefined keys are dropped", () => {
  const [p1, p2] = preds(`
      await em.find(Account);
      await em.find(Account, { where: { id: undefined }, take: 10 });`);
  assert.deepEqual(p1, { bool: "and", args: [] });
  assert.deepEqual(p2, { bool: "and", args: [] });
});
