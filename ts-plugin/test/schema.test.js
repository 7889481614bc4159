// Every record the front end emits (samples, vectors, a bad-input app) validates against the
// IR's JSON Schema (analyzer/ir/schema.json, draft 2020-12), and the records come in the
// documented order with sorted keys.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");
const { REPO, scanDir, makeApp, ENTITIES } = require("./helpers");

const schema = JSON.parse(fs.readFileSync(path.join(REPO, "analyzer", "ir", "schema.json"), "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(schema);

function sortedKeys(value) {
  if (Array.isArray(value)) return value.every(sortedKeys);
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    return keys.every((k, i) => i === 0 || keys[i - 1] < k) && keys.every((k) => sortedKeys(value[k]));
  }
  return true;
}

function checkAll(dir) {
  const ir = scanDir(dir);
  const order = { meta: 0, entity: 1, transaction: 2, diagnostic: 3 };
  let last = -1;
  for (const [i, r] of ir.records.entries()) {
    assert.ok(validate(r), `record ${i} (${r.type}) invalid: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(r).slice(0, 400)}`);
    assert.ok(sortedKeys(r), `record ${i} keys not sorted`);
    assert.ok(order[r.type] >= last, "record order");
    last = order[r.type];
    if (r.file !== undefined) assert.ok(!r.file.includes("\\") && !path.isAbsolute(r.file), "relative / paths");
  }
  assert.equal(ir.records[0].type, "meta");
  assert.equal(ir.records[0].frontend, "typeorm");
  const cmp = (a, b, keys) => { for (const k of keys) { if (a[k] < b[k]) return -1; if (a[k] > b[k]) return 1; } return 0; };
  const sortedBy = (rs, keys) => rs.every((r, i) => i === 0 || cmp(rs[i - 1], r, keys) <= 0);
  assert.ok(sortedBy(ir.entities, ["name"]), "entities sorted");
  assert.ok(sortedBy(ir.transactions, ["file", "line"]), "transactions sorted");
  assert.ok(sortedBy(ir.diagnostics, ["file", "line", "code"]), "diagnostics sorted");
  return ir;
}

test("samples validate", () => {
  const root = path.join(REPO, "corpus", "samples", "typeorm");
  for (const app of fs.readdirSync(root).filter((d) => fs.statSync(path.join(root, d)).isDirectory())) {
    const ir = checkAll(path.join(root, app));
    assert.ok(ir.transactions.length > 0);
  }
});

test("vectors validate", () => {
  const root = path.join(REPO, "tests", "vectors");
  for (const v of fs.readdirSync(root).filter((d) => fs.statSync(path.join(root, d)).isDirectory())) checkAll(path.join(root, v, "typeorm"));
});

test("bad input validates", () => {
  const dir = makeApp({
    "tsconfig.json": '{ "extends": "./missing-base.json", "compilerOptions": { "strict": true } }',
    "src/entities.ts": ENTITIES,
    "src/broken.ts": "export function f( {",
    "src/bad.js": "const { DataSource } = require('typeorm');",
    "src/huge.ts": "export const x = 1;\n".repeat(50),
    "src/imports.ts": 'import { nope } from "./nowhere";\nexport const y = nope;',
  });
  try {
    const ir = checkAll(dir);
    assert.ok(ir.diagnostics.length >= 4);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
