// The nodes gathered in one walk for the entity index, the boundary finder and the class
// hierarchy (src/syntax-outline.ts) are those separate walks of the trees find: every call,
// function with a body, call or method with a body, class declaration and `new`, class or
// interface with heritage clauses, in source order; and each
// function's calls those a walk of its body that stops at nested functions meets (what the
// boundary finder's later passes walked the trees again for).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { SyntaxOutline, isOwningFunction } = require("../dist/syntax-outline");
const { callsIn, makeApp, sampleApps } = require("./helpers");

const SHAPES = {
  "src/shapes.ts": [
    "declare function g(x?: unknown): number;",
    "declare function deco(): (...a: unknown[]) => void;",
    "g(1);",
    "export function f(a = g(2), b = () => g(3)) { g(4); const inner = (x: number) => g(x)(5); return g(inner); }",
    "export const curried = (a: number) => (b: number) => g(a + b);",
    "export class C {",
    "  field = g(6); made = new C();",
    "  constructor(private n = g(7)) { g(8); }",
    "  get size() { return g(9); }",
    "  m(@deco() p: number) { const o = { get v() { return g(10); }, w() { return g(11); } }; class L { constructor() { g(12); } } return g(o); }",
    "  overload(a: string): void;",
    "  overload(a: unknown) { [1].map(function (x) { return g(x); }); }",
    "}",
    "interface I { x: number }",
    "interface J extends I { y: number }",
    "export class D extends C implements J { x = 1; y = 2; inner() { return new (class E extends C {})(); } }",
    "",
  ].join("\n"),
};

/** The calls of `fn`'s body that a walk stopping at nested functions meets, in order. */
function bodyCalls(fn) {
  const out = [];
  const scan = (c) => {
    if (c !== fn && isOwningFunction(c)) return;
    if (ts.isCallExpression(c)) out.push(c);
    ts.forEachChild(c, scan);
  };
  scan(fn.body);
  return out;
}

/** The nodes of a file that `keep` accepts, in source order (a node before its children). */
function nodesIn(sf, keep) {
  const out = [];
  const visit = (n) => {
    if (keep(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function checkOutline(dir) {
  const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
  const outline = SyntaxOutline.of(setup.files);
  const every = (keep) => setup.files.flatMap((sf) => nodesIn(sf, keep));
  assert.deepEqual(outline.calls, setup.files.flatMap(callsIn));
  const functions = every((n) => isOwningFunction(n) && !!n.body);
  assert.deepEqual(outline.functions, functions);
  assert.deepEqual(outline.callsAndMethods, every((n) => ts.isCallExpression(n) || (ts.isMethodDeclaration(n) && !!n.body)));
  assert.deepEqual(outline.classes, every(ts.isClassDeclaration));
  assert.deepEqual(outline.news, every(ts.isNewExpression));
  const heirsAndNews = every((n) => ((ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n)) && !!n.heritageClauses) || ts.isNewExpression(n));
  assert.deepEqual(outline.heirsAndNews, heirsAndNews);
  const owned = outline.callsByOwner();
  let ownedCalls = 0;
  for (const fn of functions) {
    assert.deepEqual(owned.get(fn) ?? [], bodyCalls(fn), fn.getText().slice(0, 60));
    ownedCalls += bodyCalls(fn).length;
  }
  return { outline, ownedCalls };
}

test("the outline's nodes and owners are those separate walks find, on the samples and on nested shapes", () => {
  for (const { dir } of sampleApps()) checkOutline(dir);
  const dir = makeApp(SHAPES);
  try {
    const { outline, ownedCalls } = checkOutline(dir);
    const owner = (text) => {
      const i = outline.calls.findIndex((c) => c.getText() === text);
      assert.ok(i >= 0, text);
      const o = outline.owners[i];
      return o ? (o.name ? o.name.getText() : o.getText().slice(0, 12)) : undefined;
    };
    // top-level code, parameter defaults, decorators and class fields outside any body: no owner
    for (const text of ["g(1)", "g(2)", "deco()", "g(6)", "g(7)"]) assert.equal(owner(text), undefined, text);
    // constructors, accessors and local classes belong to the function around them, if any
    assert.equal(owner("g(8)"), undefined);
    assert.equal(owner("g(9)"), undefined);
    assert.equal(owner("g(10)"), "m");
    assert.equal(owner("g(12)"), "m");
    assert.equal(owner("g(11)"), "w");
    assert.equal(owner("g(4)"), "f");
    assert.equal(owner("g(3)"), "() => g(3)");
    assert.equal(owner("g(a + b)"), "(b: number) ");
    assert.ok(ownedCalls >= 10);
    // heritage clauses of classes and interfaces, and `new`s, in source order
    assert.deepEqual(outline.heirsAndNews.map((n) => (n.name ? n.name.getText() : n.getText())),
      ["new C()", "J", "D", "new (class E extends C {})()"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
