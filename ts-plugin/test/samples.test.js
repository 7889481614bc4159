// The TypeORM sample applications: scanning each must give exactly the transactions of its
// expected.json (explicit and autocommit), with their statements (file, line, entity, kind) as IR facts. The verdicts
// themselves are the Python core's job; tests/test_samples.py checks them on the same files.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { SAMPLES, scanDir, statements } = require("./helpers");

const key = (s) => `${s.file}:${s.line} ${s.entity} ${s.kind}`;

for (const app of fs.readdirSync(SAMPLES).filter((d) => fs.existsSync(path.join(SAMPLES, d, "expected.json"))).sort()) {
  test(`sample ${app}`, async (t) => {
    const expected = JSON.parse(fs.readFileSync(path.join(SAMPLES, app, "expected.json"), "utf8"));
    const ir = scanDir(path.join(SAMPLES, app));
    // explicit transactions by file:line; autocommit ones by file:line:column (their id)
    const where = (tx) => (tx.boundary === "autocommit" ? tx.id.replace(/:autocommit$/, "") : `${tx.file}:${tx.line}`);
    const byLoc = new Map([...ir.transactions, ...ir.autocommit].map((tx) => [where(tx), tx]));
    const wanted = [
      ...expected.transactions.map((e) => ({ ...e, where: `${e.file}:${e.line}` })),
      ...(expected.autocommit ?? []).map((e) => ({ ...e, boundary: "autocommit", where: `${e.file}:${e.line}:${e.column}` })),
    ];

    await t.test("no unexpected transactions", () => {
      const want = new Set(wanted.map((e) => e.where));
      assert.deepEqual([...byLoc.keys()].filter((k) => !want.has(k)), []);
    });
    for (const e of wanted) {
      await t.test(`${e.where} ${e.function.split(".").pop()}`, () => {
        const tx = byLoc.get(e.where);
        assert.ok(tx, `transaction not reported`);
        assert.equal(tx.boundary, e.boundary);
        assert.equal(tx.function, e.function);
        assert.deepEqual(statements(tx).map(key).sort(), e.statements.map(key).sort(), "statements");
      });
    }
    await t.test("entities", () => {
      for (const e of expected.entities) {
        const rec = ir.entities.find((r) => r.name === e.name);
        assert.ok(rec, `entity ${e.name}`);
        assert.deepEqual([...rec.pk].sort(), [...e.pk].sort(), `${e.name} pk`);
        const norm = (sets) => sets.map((s) => [...s].sort().join(",")).sort();
        assert.deepEqual(norm(rec.unique), norm(e.unique), `${e.name} unique`);
      }
    });
    await t.test("diagnostics", () => {
      for (const d of expected.diagnostics) {
        assert.ok(ir.diagnostics.some((r) => r.file === d.file && r.code === d.code), `${d.file} ${d.code}`);
      }
    });
    await t.test("deterministic", () => {
      assert.equal(scanDir(path.join(SAMPLES, app)).text, ir.text);
    });
  });
}

test("expected.json files are up to date with the samples (line numbers are computed)", () => {
  const { spawnSync } = require("child_process");
  const r = spawnSync(process.execPath, [path.join(SAMPLES, "make-expected.js"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});
