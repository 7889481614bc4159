// The autocommit call graph's callees decided from declarations (autocommit.ts
// calleeFromDeclarations: import-bindings.ts, untyped-calls.ts) equal the checker's answers on
// every call of the samples, the vectors and a folder of shapes; the shapes where the checker's
// answer could differ (inherited and overloaded statics, merged classes, assertions, narrowed or
// reassignable names) are left to the checker; and building the graph types no argument of an
// untyped call and no name bound from a dynamic import.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { calleeByChecker, calleeFromDeclarations, unitsToWalk } = require("../dist/autocommit");
const { BoundaryFinder } = require("../dist/boundaries");
const { REPO, callsIn, makeApp, sampleApps } = require("./helpers");

const SHAPES = {
  "src/lib.ts": [
    "export class Base { static inherited(): void {} }",
    "export class Logger extends Base {",
    "  static warn(m: string): void { void m; }",
    "  static over(a: string): void;",
    "  static over(a: number): void;",
    "  static over(a: any): void { void a; }",
    "  static arrow = (m: string) => m;",
    "  info(m: string): void { void m; }",
    "}",
    "export class Service { run(): number { return 1; } }",
    "export class Merged { static warn(): void {} }",
    "export namespace Merged { export const x = 1; }",
    "",
  ].join("\n"),
  "src/cli.ts": [
    "declare const loose: any;",
    "function check(x: unknown): asserts x is object { void x; }",
    "export async function cli(app: any) {",
    '  const { Logger, Service: Renamed, Merged } = await import("./lib");',
    '  const all = await import("./lib");',
    '  Logger.warn("a");',
    "  Logger.inherited();",
    "  Logger.over(1);",
    '  Logger.arrow("x");',
    "  Merged.warn();",
    '  all.Logger.warn("b");',
    "  app.get(Renamed).run();",
    "  (await app.get(Renamed)).run();",
    "  (app.get(Renamed) as InstanceType<typeof Renamed>).run();",
    "  const held = app.get(Renamed);",
    "  held.run();",
    "  const narrowed = app.get(Renamed);",
    "  if (narrowed instanceof Renamed) narrowed.run();",
    "  const asserted = app.get(Renamed);",
    "  check(asserted);",
    "  asserted.run();",
    "  let reassignable = app.get(Renamed);",
    "  reassignable.run();",
    "  reassignable = new Renamed();",
    "  loose.thing().run();",
    "  new Renamed().run();",
    "}",
    "",
  ].join("\n"),
};

/** The calls of the shapes answered from declarations, by callee text. */
const DECIDED = ["Logger.warn", "app.get(Renamed).run", "(await app.get(Renamed)).run", "held.run", "loose.thing().run"];
const LEFT_TO_CHECKER = ["Logger.inherited", "Logger.over", "Logger.arrow", "Merged.warn", "all.Logger.warn",
  "(app.get(Renamed) as InstanceType<typeof Renamed>).run", "narrowed.run", "asserted.run", "reassignable.run", "new Renamed().run"];

function program(dir) {
  return setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
}

function vectorApps() {
  const root = path.join(REPO, "tests", "vectors");
  return fs.readdirSync(root).map((n) => path.join(root, n, "typeorm")).filter((d) => fs.existsSync(d));
}

function withShapes(fn) {
  const dir = makeApp(SHAPES);
  try {
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every call answered from declarations gets the checker's answer; returns the calls so
 *  answered, by callee text. */
function sameAsChecker(dir) {
  const setup = program(dir);
  const decided = [];
  for (const sf of setup.files) {
    for (const call of callsIn(sf)) {
      const quick = calleeFromDeclarations(setup.checker, call);
      if (!quick) continue;
      const where = `${path.relative(dir, sf.fileName)}:${sf.getLineAndCharacterOfPosition(call.getStart()).line + 1} ${call.expression.getText()}`;
      const slow = calleeByChecker(setup.checker, call);
      assert.equal(quick.decl, slow.decl, where);
      if (!slow.decl) assert.equal(quick.untyped(), slow.untyped(), where);
      decided.push(call.expression.getText());
    }
  }
  return decided;
}

test("a callee decided from declarations is the checker's, on the shapes, the samples and the vectors", () => {
  const decided = withShapes(sameAsChecker);
  assert.deepEqual(decided, DECIDED);
  for (const { dir } of sampleApps()) sameAsChecker(dir);
  for (const dir of vectorApps()) sameAsChecker(dir);
});

test("the shapes decided from declarations have the answers the call graph links by", () => {
  withShapes((dir) => {
    const setup = program(dir);
    const sf = setup.files.find((f) => f.fileName.endsWith("cli.ts"));
    const answers = new Map(callsIn(sf).map((c) => [c.expression.getText(), calleeFromDeclarations(setup.checker, c)]));
    const warn = answers.get("Logger.warn").decl;
    assert.ok(warn && ts.isMethodDeclaration(warn) && warn.name.getText() === "warn" && warn.parent.name.getText() === "Logger");
    for (const callee of DECIDED.slice(1)) assert.deepEqual([answers.get(callee).decl, answers.get(callee).untyped()], [undefined, true], callee);
    for (const callee of LEFT_TO_CHECKER) assert.equal(answers.get(callee), undefined, callee);
  });
});

test("the call graph types no argument of an untyped call and no name bound from a dynamic import", () => {
  withShapes((dir) => {
    const setup = program(dir);
    const asked = new Set();
    const checker = Object.create(setup.checker);
    for (const method of ["getTypeAtLocation", "getSymbolAtLocation", "getResolvedSignature"]) {
      checker[method] = (n, ...rest) => {
        asked.add(n);
        return setup.checker[method](n, ...rest);
      };
    }
    const boundaries = new BoundaryFinder(setup.checker, dir, setup.program);
    boundaries.find(setup.files);
    unitsToWalk({ checker, isAppFile: (f) => setup.files.includes(f) }, setup.files, boundaries);
    const sf = setup.files.find((f) => f.fileName.endsWith("cli.ts"));
    const byText = (text) => callsIn(sf).find((c) => c.expression.getText() === text);
    // the member names the graph would have asked the checker about
    for (const callee of ["Logger.warn", "app.get(Renamed).run", "held.run"]) assert.ok(!asked.has(byText(callee).expression.name), callee);
    // the argument of the untyped call `app.get(Renamed)` under `held.run()`
    const held = byText("held.run").expression.expression;
    const heldDecl = setup.checker.getSymbolAtLocation(held).valueDeclaration;
    assert.ok(!asked.has(heldDecl.initializer) && !asked.has(heldDecl.initializer.arguments[0]));
    // a call left to the checker is asked about as before
    assert.ok(asked.has(byText("narrowed.run").expression.name));
  });
});
