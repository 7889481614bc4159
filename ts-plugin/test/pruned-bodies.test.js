// What the program leaves out must never be something a record needs. Migrations' bodies are
// blanked when the function's type is written out (src/migration-bodies.ts); the boundaries'
// callee-name filter (src/callee-names.ts CalleeNameFilter) skips calls it can prove call none
// of the functions asked about. Each test here fails if what was left out held a statement,
// a type a statement needs, or one of the functions.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { blankedMigration } = require("../dist/migration-bodies");
const { CalleeNameFilter, declaredNames } = require("../dist/callee-names");
const { canonicalJson } = require("../dist/ir");
const { ENTITIES, flatSteps, makeApp, sampleApps, scanSources } = require("./helpers");


// A migration outside a migrations folder (found by MigrationInterface), holding raw SQL in
// typed bodies, and helpers the application imports from it: one typed, one whose return type
// only its body gives.
const MIGRATION = `import { EntityManager, MigrationInterface, QueryRunner, Repository } from "typeorm";
import { User } from "../entities";
export function typedUsers(m: EntityManager): Repository<User> {
  return m.getRepository(User);
}
export function inferredUsers(m: EntityManager) {
  return m.getRepository(User);
}
export class Seed1 implements MigrationInterface {
  public async up(q: QueryRunner): Promise<void> {
    await q.query("INSERT INTO user (name) VALUES ('a')");
    await q.manager.getRepository(User).delete({ name: "b" });
  }
  public async down(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM user");
  }
}
`;

// Repositories typed by the migration's helpers: one by its signature, one by its body.
const APP = {
  "src/entities.ts": ENTITIES,
  "src/db/1-seed.ts": MIGRATION,
  "src/users.service.ts": `import { EntityManager } from "typeorm";
import { inferredUsers, typedUsers } from "./db/1-seed";
export class UsersService {
  private users = inferredUsers(this.m);
  private typed = typedUsers(this.m);
  constructor(private m: EntityManager) {}
  async rename(id: number, name: string) {
    await this.users.save({ id, name });
    await this.typed.update({ id }, { name });
  }
}
`,
};

test("a migration's typed bodies are blanked in the program: lines, positions and its declarations stay", () => {
  const dir = makeApp(APP);
  try {
    const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
    const sf = setup.program.getSourceFiles().find((f) => f.fileName.endsWith("1-seed.ts"));
    assert.equal(sf.text.length, MIGRATION.length);
    assert.deepEqual(sf.text.split("\n").map((l) => l.length), MIGRATION.split("\n").map((l) => l.length));
    assert.ok(!sf.text.includes("INSERT INTO") && !sf.text.includes("DELETE FROM"), "up()/down() bodies are blanked");
    assert.ok(!sf.text.includes("return m.getRepository(User);\n}\nexport function inferred"), "the typed helper's body is blanked");
    assert.ok(sf.text.includes("export function inferredUsers(m: EntityManager) {\n  return m.getRepository(User);"), "a body its type comes from is kept");
    assert.ok(!setup.files.includes(sf), "a migration is not analysed");
    assert.equal(setup.program.getSyntacticDiagnostics(sf).length, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("statements on repositories typed by a migration's helpers keep their entity: by the signature, by the kept body", () => {
  const ir = scanSources(APP);
  const found = ir.autocommit.map((t) => [t.line, t.steps.map((s) => [s.api, s.entity])]);
  assert.deepEqual(found, [[8, [["save", "User"]]], [9, [["update", "User"]]]]);
  // nothing of the migration itself is a record; it is counted as skipped
  assert.ok([...ir.transactions, ...ir.autocommit].every((t) => t.file !== "src/db/1-seed.ts"));
  assert.match(ir.diagnostics.find((d) => d.code === "default-scope").message, / 1 migration,/);
});

test("a migration is kept whole when blanking could change anything: syntax errors, loads in bodies, untyped bodies, not a migration", () => {
  const target = ts.ScriptTarget.ES2021;
  assert.equal(blankedMigration("a.ts", "export const x = 1;\n", target), undefined);
  const broken = MIGRATION.replace("DELETE FROM user\");", "DELETE FROM user\"");
  assert.equal(blankedMigration("b.ts", broken.replace("await q.query(\"INSERT", "await q.query((\"INSERT"), target), undefined);
  const loads = `import { MigrationInterface, QueryRunner } from "typeorm";
export class M implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> { const m = await import("./other"); await m.run(q); }
  async down(q: QueryRunner): Promise<void> { require("./other"); }
}
`;
  assert.equal(blankedMigration("c.ts", loads, target), undefined);
  const untyped = `import { MigrationInterface, QueryRunner } from "typeorm";
export class M implements MigrationInterface {
  async up(q: QueryRunner) { await q.query("x"); }
  async down(q: QueryRunner) { await q.query("y"); }
}
`;
  assert.equal(blankedMigration("d.ts", untyped, target), undefined);
  // the only mention of MigrationInterface inside a body: blanking would unmake the migration
  const nested = `export function make(): unknown {
  class M implements MigrationInterface { async up(): Promise<void> {} }
  return M;
}
`;
  assert.equal(blankedMigration("e.ts", nested, target), undefined);
});

test("a syntax error in a migration is reported on its own text", () => {
  const ir = scanSources({ ...APP, "src/db/1-seed.ts": MIGRATION.replace("DELETE FROM user\");", "DELETE FROM user\";") });
  const d = ir.diagnostics.find((x) => x.file === "src/db/1-seed.ts");
  assert.equal(d?.code, "parse-error");
  assert.equal(d.line, 15);
});

// ---------------------------------------------------------------- the callee-name filter

const SHAPES = {
  "src/decorate.ts": `export default (props: { name: string }) => (target: object, key: string) => undefined;\n`,
  "src/named.ts": `export default (function runInTx(work: () => void) { work(); });\n`,
  "src/helpers.ts": [
    "export const wrap = async <T>(work: () => Promise<T>): Promise<T> => work();",
    "export const cast = ((work: () => void) => work()) as (w: () => void) => void;",
    "export const typed: (w: () => void) => void = (w) => w();",
    "export const named = function runInTx(work: () => void) { work(); };",
    "export let changing = (w: () => void) => w();",
    "export const { picked } = { picked: (w: () => void) => w() };",
    "",
  ].join("\n"),
  "src/service.ts": [
    'import decorate from "./decorate";',
    'import other from "./named";',
    'import { wrap, cast, typed, named, changing, picked } from "./helpers";',
    "export class Service {",
    '  @decorate({ name: "n" }) field = 1;',
    "  async run(cb: (w: () => void) => void) {",
    "    await wrap(async () => 1); cast(() => 1); typed(() => 1); named(() => 1); other(() => 1);",
    "    changing(() => 1); picked(() => 1); cb(() => 1);",
    "    Number('1'); parseInt('2'); new Date(); JSON.stringify({});",
    "    const mod = await import(\"./helpers\");",
    "    const local = (w: () => void) => w();",
    "    local(() => 1);",
    "  }",
    "}",
    "",
  ].join("\n"),
};

function functionsWithBodies(sf) {
  const out = [];
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) out.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** For every function of the app and every call: when the filter says the call cannot call
 *  the function, a fresh checker's signature (and the callee's symbol) agree. */
function filterAgrees(dir) {
  const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
  const fresh = setup.program.getTypeChecker();
  const filter = new CalleeNameFilter(setup.checker);
  let skipped = 0;
  for (const fn of setup.files.flatMap(functionsWithBodies)) {
    const names = new Set(declaredNames(fn));
    if (names.size === 0) continue;
    for (const sf of setup.files) {
      const visit = (n) => {
        if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && !filter.mayCall(n, names)) {
          skipped++;
          const where = `${path.relative(dir, sf.fileName)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1} ${[...names]}`;
          assert.notEqual(fresh.getResolvedSignature(n)?.declaration, fn, where);
          const sym = fresh.getSymbolAtLocation(n.expression);
          const target = sym && sym.flags & ts.SymbolFlags.Alias ? fresh.getAliasedSymbol(sym) : sym;
          for (const d of target?.declarations ?? []) {
            assert.notEqual(d, fn, where);
            if (ts.isVariableDeclaration(d) && d.initializer) assert.notEqual(d.initializer, fn, where);
          }
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
  }
  return skipped;
}

test("the callee-name filter skips only calls that resolve to none of the functions asked about", () => {
  let skipped = 0;
  for (const { dir } of sampleApps()) skipped += filterAgrees(dir);
  const dir = makeApp(SHAPES);
  try {
    skipped += filterAgrees(dir);
    const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
    const filter = new CalleeNameFilter(setup.checker);
    const sf = setup.files.find((f) => f.fileName.endsWith("service.ts"));
    const verdict = new Map();
    const visit = (n) => {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) verdict.set(n.expression.getText(), filter.mayCall(n, new Set(["runInTx"])));
      ts.forEachChild(n, visit);
    };
    visit(sf);
    // a const or default export holding a function literal is that function: judged by its own name
    assert.equal(verdict.get("wrap"), false);
    assert.equal(verdict.get("cast"), false);
    assert.equal(verdict.get("typed"), false, "its type is written out, its value is still that arrow");
    assert.equal(verdict.get("decorate"), false);
    assert.equal(verdict.get("named"), true, "a function expression named runInTx");
    assert.equal(verdict.get("other"), true, "a default export named runInTx");
    // library globals and functions declared only in declaration files
    for (const g of ["Number", "parseInt", "Date", "JSON.stringify", "import"]) assert.equal(verdict.get(g), false, g);
    // values that may hold any function stay
    for (const v of ["changing", "picked", "cb"]) assert.equal(verdict.get(v), true, v);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(skipped > 100, `only ${skipped} calls skipped`);
});

// ---------------------------------------------------------------- EntitySchema under other names

test("EntitySchema is found under every name an import or export gives it, and only \`new\` of those names is asked about", () => {
  const ir = scanSources({
    "src/orm.ts": `export { EntitySchema as Schema, EntitySchema as default } from "typeorm";\nexport * as orm from "typeorm";\n`,
    "src/barrel.ts": `export { Schema as Table } from "./orm";\n`,
    "src/a.ts": `import { Table } from "./barrel";\nexport const A = new Table({ name: "A", columns: { id: { primary: true, type: Number } } });\n`,
    "src/b.ts": `import Anything from "./orm";\nexport const B = new Anything({ name: "B", columns: { id: { primary: true, type: Number } } });\n`,
    "src/c.ts": `import { orm } from "./orm";\nexport const C = new orm.EntitySchema({ name: "C", columns: { id: { primary: true, type: Number } } });\n`,
    "src/d.ts": `import { EntitySchema as ES } from "typeorm";\nexport const D = new ES({ name: "D", columns: { id: { primary: true, type: Number } } });\n`,
    "src/e.ts": `import typeorm = require("typeorm");\nexport const E = new typeorm.EntitySchema({ name: "E", columns: { id: { primary: true, type: Number } } });\n`,
    "src/not.ts": `import { EntitySchema } from "typeorm";\nclass Mine extends EntitySchema<object> {}\nexport const N = new Mine({ name: "N", columns: {} });\nexport const M = new Map<string, number>();\n`,
  });
  assert.deepEqual(ir.entities.map((e) => e.name), ["A", "B", "C", "D", "E"]);
});

test("the IR's canonical JSON sorts keys at every level, index-like keys included", () => {
  const value = { b: 1, a: [{ z: null, y: "x", w: undefined }], "10": { "2": true, "1": false, c: [1, "2"] }, "9": 0 };
  const text = canonicalJson(value);
  assert.equal(text, '{"10":{"1":false,"2":true,"c":[1,"2"]},"9":0,"a":[{"y":"x","z":null}],"b":1}');
  assert.equal(canonicalJson({ type: "x", ir: 1, steps: [{ id: "s1", api: "save" }] }), '{"ir":1,"steps":[{"api":"save","id":"s1"}],"type":"x"}');
  assert.equal(canonicalJson("a\u2028"), JSON.stringify("a\u2028"));
});
