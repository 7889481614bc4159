// Shared Django/TypeORM test vectors (tests/vectors/<name>/): the TypeORM half must emit the
// statements expected.json lists, in order. The verdicts both halves lead to are checked with
// the Python core in tests/test_vectors.py.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { REPO, scanDir, statements } = require("./helpers");

const VECTORS = path.join(REPO, "tests", "vectors");
const names = fs.readdirSync(VECTORS).filter((n) => fs.existsSync(path.join(VECTORS, n, "expected.json"))).sort();

test("at least six shared vectors, each written for both ORMs", () => {
  assert.ok(names.length >= 6, `only ${names.length} vectors`);
  for (const n of names) {
    for (const f of ["django/models.py", "django/services.py", "typeorm/models.ts", "typeorm/services.ts"]) {
      assert.ok(fs.existsSync(path.join(VECTORS, n, f)), `${n}/${f}`);
    }
  }
});

for (const name of names) {
  test(`vector ${name}`, () => {
    const expected = JSON.parse(fs.readFileSync(path.join(VECTORS, name, "expected.json"), "utf8"));
    const ir = scanDir(path.join(VECTORS, name, "typeorm"));
    assert.equal(ir.transactions.length, expected.transactions.length, "transaction count");
    for (const e of expected.transactions) {
      const tx = ir.transactions.find((t) => t.function.endsWith(e.function_suffix));
      assert.ok(tx, `transaction ${e.function_suffix}`);
      // statements in execution order, as the IR lists them
      assert.deepEqual(
        statements(tx).map(({ entity, kind }) => ({ entity, kind })),
        e.statements.map(({ entity, kind }) => ({ entity, kind })),
      );
    }
    assert.deepEqual(ir.diagnostics.filter((d) => d.severity !== "info"), [], "no warnings on a vector");
  });
}
