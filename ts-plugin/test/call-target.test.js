// A call's target read from its callee's sole declaration (src/callee-names.ts soleCallTarget)
// is the declaration the checker's signature resolution gives, on every call of the samples
// and of a folder of call shapes; shapes the name alone cannot decide are left to the checker.
// The per-node checker cache (src/checker-memo.ts) answers as the checker does.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { calledDeclaration, libraryDeclaration, soleCallTarget } = require("../dist/callee-names");
const { NodeTable } = require("../dist/checker-memo");
const { callsIn: calls, makeApp, sampleApps } = require("./helpers");


function program(dir) {
  return setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
}

/** Calls whose target the sole declaration gave, each checked against a fresh checker. */
function agreeing(dir) {
  const setup = program(dir);
  const fresh = setup.program.getTypeChecker();
  let decided = 0;
  for (const sf of setup.files) {
    for (const call of calls(sf)) {
      const sole = soleCallTarget(setup.checker, call);
      if (!sole) continue;
      decided++;
      const where = `${path.relative(dir, sf.fileName)}:${sf.getLineAndCharacterOfPosition(call.getStart()).line + 1}`;
      assert.equal(sole, fresh.getResolvedSignature(call)?.declaration, where);
    }
  }
  return decided;
}

test("every sample call decided by its callee's sole declaration resolves to that declaration", () => {
  let decided = 0;
  for (const { dir } of sampleApps()) decided += agreeing(dir);
  assert.ok(decided > 20, `only ${decided} calls decided`);
});

const SHAPES = {
  "src/decorate.ts": `export default (props: { name: string; size?: number }) => (target: object, key: string) => undefined;\n`,
  "src/helpers.ts": [
    "export const wrap = async <T>(work: () => Promise<T>): Promise<T> => work();",
    "export const typed: (x: number) => number = (x) => x + 1;",
    "export let changing = (x: number) => x;",
    "export function plain(a: string): string { return a; }",
    "export function over(a: string): string;",
    "export function over(a: number): number;",
    "export function over(a: any): any { return a; }",
    "export const cast = ((x: number) => x) as (x: number) => number;",
    "",
  ].join("\n"),
  "src/service.ts": [
    'import decorate from "./decorate";',
    'import { wrap, typed, changing, plain, over, cast } from "./helpers";',
    "class Base { base(): number { return 1; } }",
    "export class Service extends Base {",
    '  @decorate({ name: "n", size: 3 }) field = 1;',
    "  async run(cb: (n: number) => number, fns: Array<() => void>) {",
    "    await wrap(async () => plain('a'));",
    "    typed(1); changing(2); over(3); over('x'); cast(4);",
    "    cb(5); fns[0](); this.base(); this.helper(6);",
    "    const local = (x: number) => x * 2;",
    "    local(7);",
    "  }",
    "  helper(n: number) { return n; }",
    "}",
    "",
  ].join("\n"),
};

test("call shapes: functions, methods, const and default-exported arrows are decided; typed values, overloads, `let`, parameters are not", () => {
  const dir = makeApp(SHAPES);
  const setup = program(dir);
  const sf = setup.files.find((f) => f.fileName.endsWith("service.ts"));
  const decided = new Map();
  for (const call of calls(sf)) decided.set(call.expression.getText(), !!soleCallTarget(setup.checker, call));
  const expect = {
    decorate: true, wrap: true, plain: true, "this.base": true, "this.helper": true, local: true,
    typed: false, changing: false, over: false, cast: false, cb: false, "fns[0]": false,
  };
  for (const [callee, yes] of Object.entries(expect)) assert.equal(decided.get(callee), yes, callee);
  assert.ok(agreeing(dir) >= 6);
});

test("the per-node checker cache answers as the checker does, the same object each time", () => {
  const { dir } = sampleApps()[0];
  const setup = program(dir);
  const fresh = setup.program.getTypeChecker();
  let asked = 0;
  for (const sf of setup.files) {
    const visit = (n) => {
      if (ts.isIdentifier(n)) {
        const first = setup.checker.getSymbolAtLocation(n);
        assert.equal(setup.checker.getSymbolAtLocation(n), first);
        assert.equal(first, fresh.getSymbolAtLocation(n));
        asked++;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    for (const call of calls(sf)) assert.equal(setup.checker.getResolvedSignature(call), setup.checker.getResolvedSignature(call));
  }
  assert.ok(asked > 20);
});

const LIBRARY_CALLS = {
  "src/service.ts": [
    "export function mine(n: number): number { return n; }",
    "export class Service {",
    "  run(xs: number[], text: string) {",
    "    JSON.stringify({ a: xs.map((x) => x + 1) });",
    "    Promise.resolve(text.trim()).then((t) => t.length);",
    "    Math.max(...xs); parseInt(text, 10); mine(xs.length);",
    "    setTimeout(() => mine(1), 10);",
    "  }",
    "}",
    "",
  ].join("\n"),
};

test("a call of a library function or method is answered by its declaration file without resolving its signature", () => {
  const dir = makeApp(LIBRARY_CALLS);
  const setup = program(dir);
  const fresh = setup.program.getTypeChecker();
  let resolved = 0;
  const counting = Object.create(setup.checker);
  counting.getResolvedSignature = (...a) => {
    resolved++;
    return setup.checker.getResolvedSignature(...a);
  };
  const sf = setup.files.find((f) => f.fileName.endsWith("service.ts"));
  const library = [];
  for (const call of calls(sf)) {
    const decl = libraryDeclaration(counting, call);
    if (!decl) continue;
    library.push(call.expression.getText());
    assert.ok(decl.getSourceFile().isDeclarationFile);
    assert.ok(calledDeclaration(counting, call).getSourceFile().isDeclarationFile);
    // the checker's own answer is a declaration of the library too
    assert.ok(fresh.getResolvedSignature(call).declaration.getSourceFile().isDeclarationFile, call.getText());
  }
  assert.equal(resolved, 0);
  assert.deepEqual(library.sort(), ["JSON.stringify", "Math.max", "Promise.resolve(text.trim()).then", "Promise.resolve", "parseInt", "setTimeout", "text.trim", "xs.map"].sort());
  // the application's function is not a library's: its declaration is the one with the body
  const own = calls(sf).filter((c) => c.expression.getText() === "mine");
  assert.equal(own.length, 2);
  for (const call of own) {
    assert.equal(libraryDeclaration(setup.checker, call), undefined);
    assert.equal(calledDeclaration(setup.checker, call), fresh.getResolvedSignature(call).declaration);
  }
});

test("answers kept per node are computed once each, `undefined` answers too", () => {
  const dir = makeApp(LIBRARY_CALLS);
  const setup = program(dir);
  const sf = setup.files[0];
  const table = new NodeTable();
  const computed = new Map();
  const nodes = [];
  const visit = (n) => {
    nodes.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  const answer = (n) => {
    computed.set(n, (computed.get(n) ?? 0) + 1);
    return ts.isIdentifier(n) ? n.text : undefined;
  };
  for (let round = 0; round < 3; round++) {
    for (const n of nodes) assert.equal(table.get(n, answer), ts.isIdentifier(n) ? n.text : undefined);
  }
  assert.ok(nodes.length > 50);
  for (const n of nodes) assert.equal(computed.get(n), 1);
});
