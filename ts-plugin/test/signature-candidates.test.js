// The declarations a call's signature can resolve to, read off the callee's type
// (src/signature-candidates.ts): never false when the checker's resolution gives one of them, on
// every call of the samples, the vectors and a folder of call shapes; and the boundary finder's
// "which wrapper does this call invoke?" gives the answer it gave by resolving every signature,
// while resolving none where the callee's type excludes a wrapper.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { mayResolveToOneOf } = require("../dist/signature-candidates");
const { BoundaryFinder } = require("../dist/boundaries");
const { EntityIndex } = require("../dist/entities");
const { stripParens, unalias } = require("../dist/names");
const { REPO, callsIn, makeApp, sampleApps } = require("./helpers");

function program(dir) {
  return setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
}

function vectorApps() {
  const root = path.join(REPO, "tests", "vectors");
  return fs.readdirSync(root).map((n) => path.join(root, n, "typeorm")).filter((d) => fs.existsSync(d));
}

const SHAPES = {
  "src/service.ts": [
    "export class Tx {",
    "  async run<T>(work: (n: number) => Promise<T>): Promise<T> { return work(1); }",
    "  over(a: string): string;",
    "  over(a: number): number;",
    "  over(a: any): any { return a; }",
    "  arrow = async (x: number) => x;",
    "  maker() { return (y: string) => y.length; }",
    "}",
    "type Run = Tx['run'];",
    "interface Both { a(): void }",
    "interface Other { a(): number }",
    "declare const either: Both | Other;",
    "declare const mixed: Both & { b(x: number): void };",
    "declare const loose: any;",
    "export function viaType(r: Run, t?: Tx, u: Tx | undefined = undefined, f?: () => void) {",
    "  r(async (n) => n);",
    "  t?.run(async () => 1); u!.run(async () => 2); t?.arrow(3); f?.();",
    "  either.a(); mixed.a(); mixed.b(1); loose.thing(); loose();",
    "  new Tx().maker()('s'); new Tx().over(1); new Tx().over('x');",
    "  const bound = new Tx().run.bind(new Tx()); bound(async () => 3);",
    "  new Tx().run.call(new Tx(), async () => 4);",
    "  const alias = new Tx().arrow; alias(5);",
    "  return new Promise<void>((resolve, reject) => { resolve(); reject(new Error('x')); });",
    "}",
    "class Base { constructor(public n: number) {} }",
    "export class Child extends Base { constructor() { super(1); } }",
    "",
  ].join("\n"),
};

/** Every call whose checker answer has a declaration is admitted with that declaration alone. */
function admitsEveryResolution(dir) {
  const setup = program(dir);
  const fresh = setup.program.getTypeChecker();
  let checked = 0;
  for (const sf of setup.files) {
    for (const call of callsIn(sf)) {
      const declaration = fresh.getResolvedSignature(call)?.declaration;
      if (!declaration) continue;
      checked++;
      const where = `${path.relative(dir, sf.fileName)}:${sf.getLineAndCharacterOfPosition(call.getStart()).line + 1} ${call.expression.getText()}`;
      assert.ok(mayResolveToOneOf(setup.checker, call, new Set([declaration])), where);
    }
  }
  return checked;
}

test("a call resolving to a declaration is never said to resolve to none of a set holding it", () => {
  let checked = 0;
  for (const { dir } of sampleApps()) checked += admitsEveryResolution(dir);
  for (const dir of vectorApps()) checked += admitsEveryResolution(dir);
  const shapes = makeApp(SHAPES);
  try {
    checked += admitsEveryResolution(shapes);
  } finally {
    fs.rmSync(shapes, { recursive: true, force: true });
  }
  assert.ok(checked > 300, `only ${checked} calls checked`);
});

test("a callee typed without a wanted signature is answered no: any, other declarations, no call signature", () => {
  const shapes = makeApp(SHAPES);
  try {
    const setup = program(shapes);
    const sf = setup.files.find((f) => f.fileName.endsWith("service.ts"));
    const run = sf.statements.find(ts.isClassDeclaration).members.find((m) => m.name?.getText() === "run");
    const answers = new Map(callsIn(sf).map((c) => [c.expression.getText(), mayResolveToOneOf(setup.checker, c, new Set([run]))]));
    for (const callee of ["r", "t?.run", "u!.run"]) assert.equal(answers.get(callee), true, callee);
    for (const callee of ["loose.thing", "loose", "either.a", "resolve", "new Tx().over", "f"]) assert.equal(answers.get(callee), false, callee);
  } finally {
    fs.rmSync(shapes, { recursive: true, force: true });
  }
});

/** The wrapper a call invokes as the boundary finder answered before signature-candidates.ts:
 *  the declaration of the resolved signature, then the callee's declarations. */
function wrapperByResolution(finder, checker, call) {
  const decl = checker.getResolvedSignature(call)?.declaration;
  if (decl && finder.wrappers.has(decl)) return finder.wrappers.get(decl);
  const found = checker.getSymbolAtLocation(stripParens(call.expression));
  const sym = found && unalias(checker, found);
  for (const d of sym?.declarations ?? []) {
    if (finder.wrappers.has(d)) return finder.wrappers.get(d);
    if (ts.isVariableDeclaration(d) && d.initializer && finder.wrappers.has(stripParens(d.initializer))) return finder.wrappers.get(stripParens(d.initializer));
  }
  return undefined;
}

const WRAPPERS = {
  "src/wrap.ts": [
    'import { DataSource, EntityManager } from "typeorm";',
    "export class Wrapping {",
    "  constructor(private ds: DataSource) {}",
    "  inTx<T>(work: (m: EntityManager) => Promise<T>): Promise<T> { return this.ds.transaction((m) => work(m)); }",
    "  chained<T>(work: (m: EntityManager) => Promise<T>): Promise<T> { return this.inTx(work); }",
    "  held = <T>(work: (m: EntityManager) => Promise<T>): Promise<T> => this.ds.transaction((m) => work(m));",
    "}",
    "export const loose = (ds: DataSource, work: (m: EntityManager) => Promise<void>) => ds.transaction((m) => work(m));",
    "type InTx = Wrapping['inTx'];",
    "export async function use(w: Wrapping, ds: DataSource, typed: InTx, cb: () => void) {",
    "  await w.inTx(async (m) => m.find('A'));",
    "  await w.chained(async (m) => m.find('B'));",
    "  await w.held(async (m) => m.find('C'));",
    "  await loose(ds, async (m) => { await m.find('D'); });",
    "  await typed(async (m) => m.find('E'));",
    "  const alias = w.inTx.bind(w); await alias(async (m) => m.find('F'));",
    "  cb();",
    "  await new Promise<void>((resolve) => { resolve(); });",
    "}",
    "",
  ].join("\n"),
};

test("the boundary finder's wrapper of each call is the one signature resolution gives, and calls typed without one are not resolved", () => {
  const dirs = [makeApp(WRAPPERS), ...sampleApps().map((s) => s.dir)];
  try {
    let wrapperCalls = 0;
    for (const dir of dirs) {
      const setup = program(dir);
      const resolved = new Set();
      const counting = Object.create(setup.checker);
      counting.getResolvedSignature = (call, ...rest) => {
        resolved.add(call);
        return setup.checker.getResolvedSignature(call, ...rest);
      };
      new EntityIndex(counting, setup.rootDir).build(setup.files, setup.program);
      const finder = new BoundaryFinder(counting, setup.rootDir, setup.program);
      finder.find(setup.files);
      for (const sf of setup.files) {
        for (const call of callsIn(sf)) {
          const fast = finder.wrapperOf(call);
          assert.equal(fast, wrapperByResolution(finder, setup.program.getTypeChecker(), call), call.getText());
          if (fast) wrapperCalls++;
        }
      }
      if (dir === dirs[0]) {
        // `cb()` and `resolve()` are typed by declarations no wrapper has: never resolved
        const unresolved = callsIn(setup.files.find((f) => f.fileName.endsWith("wrap.ts")))
          .filter((c) => ["cb", "resolve"].includes(c.expression.getText()));
        assert.equal(unresolved.length, 2);
        for (const c of unresolved) assert.ok(!resolved.has(c), c.getText());
        assert.ok(finder.wrappers.size >= 3, `${finder.wrappers.size} wrappers`);
      }
    }
    assert.ok(wrapperCalls >= 6, `${wrapperCalls} wrapper calls`);
  } finally {
    fs.rmSync(dirs[0], { recursive: true, force: true });
  }
});
