// Method calls decided from the walk's own value of the receiver (src/held-values.ts): an array
// the walk holds is neither a repository accessor of a transactional connection nor an
// ActiveRecord entity class. The checker, asked at every such call of the samples, the vectors
// and a folder of shapes, agrees; the shapes' calls are decided that way (not left to the
// checker), and the IR is the same as when the checker is asked too.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { heldValueCheck } = require("../dist/held-values");
const { ENTITIES, REPO, sampleApps, scanDir, withApp } = require("./helpers");

const SHAPES = {
  "src/entities.ts": ENTITIES,
  "src/service.ts": [
    'import { DataSource } from "typeorm";',
    'import { Account, User } from "./entities";',
    "export class Service {",
    "  constructor(private ds: DataSource) {}",
    "  async run() {",
    "    await this.ds.transaction(async (em) => {",
    "      const users = await em.find(User, { where: { name: 'a' } });",
    "      const lines: number[] = [];",
    "      users.forEach((u) => lines.push(u.id));",
    "      const owners = users.map((u) => u.id);",
    "      owners.forEach((id) => lines.push(id));",
    "      for (const id of lines) await em.update(Account, { ownerId: id }, { frozen: true });",
    "      await Promise.all(users.map((u) => em.save(u)));",
    "    });",
    "  }",
    "}",
    "",
  ].join("\n"),
};

function vectorApps() {
  const root = path.join(REPO, "tests", "vectors");
  return fs.readdirSync(root).map((n) => path.join(root, n, "typeorm")).filter((d) => fs.existsSync(d));
}

/** Scans `dir` with the checker asked at each held-value decision; the decisions, by call text. */
function decisionsOf(dir) {
  const decided = [];
  heldValueCheck.compare = (call, byChecker) => decided.push({ call: call.expression.getText(), ...byChecker });
  try {
    return { decided, ir: scanDir(dir).text };
  } finally {
    heldValueCheck.compare = undefined;
  }
}

test("the checker agrees with every held-array decision of the samples, the vectors and the shapes", () => {
  const dirs = [...sampleApps().map((a) => a.dir), ...vectorApps()];
  let decided = 0;
  for (const dir of dirs) {
    for (const d of decisionsOf(dir).decided) {
      assert.deepEqual([d.accessor, d.activeRecord], [false, false], `${dir}: ${d.call}`);
      decided++;
    }
  }
  withApp(SHAPES, (dir) => {
    const shapes = decisionsOf(dir).decided;
    for (const d of shapes) assert.deepEqual([d.accessor, d.activeRecord], [false, false], d.call);
    assert.deepEqual([...new Set(shapes.map((d) => d.call))].sort(), ["lines.push", "owners.forEach", "users.forEach", "users.map"]);
    decided += shapes.length;
  });
  assert.ok(decided >= 8, `only ${decided} decisions`);
});

test("a held array's calls give the IR of asking the checker", () => {
  withApp(SHAPES, (dir) => {
    const quick = scanDir(dir);
    const checked = decisionsOf(dir).ir;
    assert.equal(quick.text, checked);
    const statements = quick.transactions[0].steps.flatMap(function flat(s) {
      return s.node === "statement" ? [s] : [...(s.body ?? []), ...(s.arms ?? []).flat()].flatMap(flat);
    });
    assert.deepEqual(statements.map((s) => `${s.entity} ${s.kind}`), ["User read", "Account write", "User write"]);
  });
});
