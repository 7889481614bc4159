// The two mistakes reported as diagnostics of a transaction: statements that escape it
// (injected repository, global data source/manager, ActiveRecord static, 0.2 globals) and
// missing awaits (unawaited call, void, forEach(async ...)). Valid cases beside each.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, statements, inTx } = require("./helpers");

const diags = (ir, code) => ir.diagnostics.filter((d) => d.code === code).map((d) => d.line);

test("escaped-manager: injected repository, global manager, data source, 0.2 globals", () => {
  const { tx, ir } = onlyTx(inTx(`
      await this.users.findOneBy({ id });
      await this.ds.manager.delete(Account, id);
      await this.ds.getRepository(User).count();
      await getRepository(User).count();
      await getManager().findOneBy(User, { id });
      await this.ds.query("SELECT 1");
      await em.findOneBy(User, { id });`, `import { getRepository, getManager } from "typeorm";`));
  assert.deepEqual(diags(ir, "escaped-manager"), [9, 10, 11, 12, 13, 14]);
  assert.deepEqual(statements(tx).map((s) => s.api), ["findOneBy"]);
  assert.equal(statements(tx)[0].line, 15);
});

test("escaped-manager: a repository obtained outside the callback", () => {
  const { ir } = onlyTx(inTx(`
      await repo.findOneBy({ id });
      await em.getRepository(User).findOneBy({ id });`).replace("await this.ds.transaction", "const repo = this.ds.getRepository(User);\n    await this.ds.transaction"));
  assert.deepEqual(diags(ir, "escaped-manager"), [10]);
});

test("valid: the callback's manager, repositories from it, queryRunner.manager, the manager's connection is not", () => {
  const { tx, ir } = onlyTx(inTx(`
      const repo = em.getRepository(User);
      await repo.findOneBy({ id });
      await em.withRepository(this.accounts).findOneBy({ id });
      await em.queryRunner!.manager.findOneBy(User, { id });
      await em.connection.getRepository(User).count();`));
  assert.equal(statements(tx).length, 3);
  assert.deepEqual(diags(ir, "escaped-manager"), [13]);
});

test("missing-await: unawaited statement, void, forEach(async ...)", () => {
  const { tx, ir } = onlyTx(inTx(`
      em.save(User, { email, name: "x" });
      void em.delete(User, id);
      ids.forEach(async (i) => { await em.delete(Account, i); });
      em.findOneBy(User, { id }).then((u) => u);`));
  assert.deepEqual(diags(ir, "missing-await"), [9, 10, 11, 12]);
  assert.equal(statements(tx).length, 4);
});

test("valid: awaited, returned, Promise.all, map(async) awaited, sync array work", () => {
  const { ir } = onlyTx(inTx(`
      await em.save(User, { email, name: "x" });
      const p = em.delete(User, id);
      await p;
      await Promise.all(ids.map(async (i) => em.delete(Account, i)));
      ids.forEach((i) => console.log(i));
      return em.count(User);`));
  assert.deepEqual(diags(ir, "missing-await"), []);
});
