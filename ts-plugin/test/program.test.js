// Program setup and bad input: tsconfig handling (extends, paths, broken), stubs only when
// the real module is missing, workspace packages, and per-file problems as diagnostics.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const { scanDir, withApp, ENTITIES } = require("./helpers");
const { setupProgram } = require("../dist/program");
const { STUB_ROOT } = require("../dist/stubs");

const SERVICE = (imp) => `import { DataSource } from "typeorm";
import { User } from "${imp}";
export async function run(ds: DataSource, id: number) {
  await ds.transaction(async (em) => { await em.findOneBy(User, { id }); });
}`;

test("tsconfig extends + paths + baseUrl are honoured", () => {
  withApp({
    "configs/base.json": JSON.stringify({ compilerOptions: { baseUrl: "..", paths: { "@model/*": ["src/model/*"] }, experimentalDecorators: true } }),
    "tsconfig.json": JSON.stringify({ extends: "./configs/base.json", compilerOptions: { strict: true } }),
    "src/model/entities.ts": ENTITIES,
    "src/service.ts": SERVICE("@model/entities"),
  }, (dir) => {
    const ir = scanDir(dir);
    assert.equal(ir.transactions.length, 1);
    assert.equal(ir.transactions[0].steps[0].entity, "User");
    assert.deepEqual(ir.diagnostics.filter((d) => d.code === "unresolved-import"), []);
  });
});

test("broken tsconfig (bad JSON, missing extends) gives a diagnostic and defaults", () => {
  for (const cfg of ['{ "compilerOptions": { ', '{ "extends": "./nope.json" }']) {
    withApp({ "tsconfig.json": cfg, "src/entities.ts": ENTITIES, "src/service.ts": SERVICE("./entities") }, (dir) => {
      const ir = scanDir(dir);
      assert.equal(ir.transactions.length, 1, cfg);
      assert.ok(ir.diagnostics.some((d) => d.file === "tsconfig.json" && d.code === "parse-error"), cfg);
    });
  }
});

test("a tsconfig's include decides nothing: options apply, its spec errors are reported, no file listing is made", () => {
  // include names no file of the app: the options still apply and the scan still sees every file
  withApp({
    "tsconfig.json": JSON.stringify({ include: ["elsewhere/**/*.ts"], compilerOptions: { baseUrl: ".", paths: { "@model/*": ["src/model/*"] } } }),
    "src/model/entities.ts": ENTITIES,
    "src/service.ts": SERVICE("@model/entities"),
  }, (dir) => {
    const ir = scanDir(dir);
    assert.equal(ir.transactions.length, 1);
    assert.equal(ir.transactions[0].steps[0].entity, "User");
    assert.deepEqual(ir.diagnostics.filter((d) => d.file === "tsconfig.json"), []);
  });
  // a spec the compiler refuses (a recursive wildcard at the end, TS5010) is still a diagnostic
  withApp({ "tsconfig.json": JSON.stringify({ include: ["src/**"] }), "src/entities.ts": ENTITIES, "src/service.ts": SERVICE("./entities") }, (dir) => {
    const ir = scanDir(dir);
    assert.equal(ir.transactions.length, 1);
    assert.ok(ir.diagnostics.some((d) => d.file === "tsconfig.json" && d.code === "parse-error" && /recursive directory wildcard/.test(d.message)));
  });
  // the compiler is never asked to list the project's files (listFiles does)
  withApp({ "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true } }), "src/entities.ts": ENTITIES, "src/service.ts": SERVICE("./entities") }, (dir) => {
    const ts = require("typescript");
    const listed = [];
    const real = ts.sys.readDirectory;
    ts.sys.readDirectory = (...args) => {
      listed.push(args[0]);
      return real.apply(ts.sys, args);
    };
    try {
      setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: 10 });
    } finally {
      ts.sys.readDirectory = real;
    }
    assert.deepEqual(listed, []);
  });
});

test("no tsconfig: decorators on, scan works", () => {
  withApp({ "src/entities.ts": ENTITIES, "src/service.ts": SERVICE("./entities") }, (dir) => {
    assert.equal(scanDir(dir).entities.length, 2);
  });
});

test("stubs are used only when the real module cannot be resolved", () => {
  withApp({ "src/entities.ts": ENTITIES, "src/service.ts": SERVICE("./entities") }, (dir) => {
    const setup = setupProgram({ root: dir, maxFileBytes: 2e6, depth: 6 });
    assert.ok(setup.program.getSourceFiles().some((f) => f.fileName.startsWith(STUB_ROOT.split(path.sep).join("/")) || f.fileName.startsWith(STUB_ROOT)));
  });
  withApp({
    "node_modules/typeorm/package.json": JSON.stringify({ name: "typeorm", version: "0.3.20", types: "index.d.ts" }),
    "node_modules/typeorm/index.d.ts": `export declare class EntityManager { findOneBy<E>(target: new () => E, where: any): Promise<E | null>; }
export declare class DataSource { transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T>; }
export declare function Entity(n?: any): any; export declare function Column(o?: any): any; export declare function PrimaryGeneratedColumn(o?: any): any;
export declare function ManyToOne(...a: any[]): any; export declare function OneToMany(...a: any[]): any; export declare function JoinColumn(o?: any): any;`,
    "src/entities.ts": ENTITIES,
    "src/service.ts": SERVICE("./entities"),
  }, (dir) => {
    const setup = setupProgram({ root: dir, maxFileBytes: 2e6, depth: 6 });
    const names = setup.program.getSourceFiles().map((f) => f.fileName);
    assert.ok(names.some((n) => n.includes("node_modules/typeorm/index.d.ts")));
    assert.ok(!names.some((n) => n.includes("stubs/typeorm")));
    const ir = scanDir(dir);
    assert.equal(ir.transactions.length, 1);
    assert.equal(ir.transactions[0].steps[0].entity, "User");
  });
});

test("monorepo workspace packages resolve to their sources", () => {
  withApp({
    "package.json": JSON.stringify({ private: true, workspaces: ["packages/*"] }),
    "packages/model/package.json": JSON.stringify({ name: "@acme/model", main: "dist/index.js" }),
    "packages/model/src/index.ts": ENTITIES,
    "packages/api/src/service.ts": SERVICE("@acme/model"),
  }, (dir) => {
    const ir = scanDir(dir);
    assert.equal(ir.transactions[0].steps[0].entity, "User");
    assert.deepEqual(ir.diagnostics.filter((d) => d.code === "unresolved-import"), []);
  });
});

test("bad files become diagnostics and the scan completes", () => {
  withApp({
    "src/entities.ts": ENTITIES,
    "src/service.ts": SERVICE("./entities"),
    "src/broken.ts": "export function f( {\n",
    "src/generated/huge.ts": "export const rows = [\n" + "  { id: 1, name: 'x' },\n".repeat(2000) + "];\n",
    "src/latin1.ts": Buffer.from([0x2f, 0x2f, 0x20, 0xe9, 0xe8, 0x0a]),
    "src/view.tsx": `import { DataSource } from "typeorm";\nexport const View = (ds: DataSource) => ds.transaction(async (m) => m.query("SELECT 1"));\n`,
    "src/types.d.ts": "declare module 'untyped-lib';\n",
    "src/orm.d.ts": "import { Repository } from 'typeorm';\nexport declare const repo: Repository<any>;\n",
    "src/imports.ts": 'import { missing } from "./does-not-exist";\nimport _ from "lodash";\nexport const z = missing;\n',
    "scripts/seed.js": "const { DataSource } = require('typeorm');\n",
    "scripts/plain.js": "console.log(1);\n",
  }, (dir) => {
    const ir = scanDir(dir, { maxFileBytes: 20000 });
    const got = ir.diagnostics.map((d) => `${d.file} ${d.code}`);
    for (const want of [
      "src/broken.ts parse-error", "src/generated/huge.ts too-large", "src/latin1.ts decode-error",
      "src/imports.ts unresolved-import", "scripts/seed.js unknown-orm-pattern", "src/orm.d.ts unknown-orm-pattern",
    ]) assert.ok(got.includes(want), `${want} in ${JSON.stringify(got)}`);
    assert.ok(!got.some((g) => g.startsWith("scripts/plain.js")));
    assert.ok(!got.some((g) => g.startsWith("src/types.d.ts")));
    assert.deepEqual(ir.transactions.map((t) => t.file), ["src/service.ts", "src/view.tsx"]);
    assert.ok(ir.diagnostics.find((d) => d.code === "parse-error").line >= 1);
  });
});

test("module resolution asks the file system about each path once, and gets the file system's answers", () => {
  const ts = require("typescript");
  const { rememberProbes } = require("../dist/probe-memo");
  withApp({
    "src/entities.ts": ENTITIES,
    "src/service.ts": SERVICE("./entities"),
    "src/deep/a/b/other.ts": `import { something } from "not-installed"; import { User } from "../../../entities";\nexport const x = something(User);`,
  }, (dir) => {
    // the memo's answers are ts.sys's, for paths that exist and paths that do not, asked twice
    const host = ts.createCompilerHost({}, true);
    rememberProbes(host);
    for (const p of [dir, path.join(dir, "src"), path.join(dir, "node_modules"), path.join(dir, "src/entities.ts"), path.join(dir, "src/none.ts")]) {
      for (let i = 0; i < 2; i++) {
        assert.equal(host.fileExists(p), ts.sys.fileExists(p), p);
        assert.equal(host.directoryExists(p), ts.sys.directoryExists(p), p);
      }
    }
    // a program build climbs to `/` for the missing package from every importing folder:
    // each folder and file is still asked about once only
    const asked = { fileExists: new Map(), directoryExists: new Map() };
    const saved = {};
    for (const op of Object.keys(asked)) {
      saved[op] = ts.sys[op];
      ts.sys[op] = (p) => {
        asked[op].set(p, (asked[op].get(p) ?? 0) + 1);
        return saved[op].call(ts.sys, p);
      };
    }
    let setup;
    try {
      setup = setupProgram({ root: dir, maxFileBytes: 2e6, depth: 6 });
    } finally {
      for (const op of Object.keys(asked)) ts.sys[op] = saved[op];
    }
    assert.ok(asked.directoryExists.has(path.join(dir, "src/deep/a/b/node_modules")) || asked.directoryExists.has(path.join(dir, "src/deep/a/b/node_modules").split(path.sep).join("/")));
    for (const op of Object.keys(asked)) for (const [p, n] of asked[op]) assert.equal(n, 1, `${op} ${p}`);
    // and what it resolved is what the file system holds
    const other = setup.program.getSourceFile(path.join(dir, "src/deep/a/b/other.ts"));
    assert.ok(setup.program.getSourceFiles().some((f) => f.fileName.endsWith("src/entities.ts")));
    assert.ok(other);
    assert.ok(setup.diagnostics.some((d) => d.code === "unresolved-import" && /not-installed/.test(d.message)));
  });
});
