// Calls decided from their callee's declarations without resolving the signature
// (src/callee-names.ts): the implementation of an overloaded function or method
// (implementationByName), the overload an argument count alone admits (overloadByArity), a
// name imported from a module the program lacks (unresolvedImport), and callees whose signature
// has no body (declaredWithoutBody; calledDeclaration gives a function-typed value's type). Each answer is checked
// against a fresh checker's signature resolution, on call shapes written for it and on every
// call of the samples.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { calledDeclaration, declaredWithoutBody, implementationByName, libraryDeclaration, overloadByArity, unresolvedImport } = require("../dist/callee-names");
const { calleeNameNode } = require("../dist/names");
const { callsIn: calls, sampleApps, withApp } = require("./helpers");

function program(dir) {
  return setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
}

/** `body` over the SHAPES app: its program (`setup`), a fresh checker of the same program to
 *  compare answers with (`fresh`), and its service.ts (`sf`). */
function withShapes(body) {
  withApp(SHAPES, (dir) => {
    const setup = program(dir);
    body({ setup, fresh: setup.program.getTypeChecker(), sf: setup.files.find((f) => f.fileName.endsWith("service.ts")) });
  });
}

/** The same declaration (or none), told by where each is: nodes are too large to compare in a message. */
function same(got, want, call) {
  const where = (d) => (d ? `${ts.SyntaxKind[d.kind]}@${d.getSourceFile().fileName}:${d.pos}` : "none");
  assert.equal(where(got ?? undefined), where(want ?? undefined), call.getText());
  assert.ok((got ?? undefined) === (want ?? undefined), call.getText());
}

/** The implementation the checker's resolved declaration stands for: itself when it has a
 *  body, otherwise the declaration with a body among its symbol's. */
function implementationOf(checker, decl) {
  if (!decl || decl.body) return decl;
  const sym = decl.name && checker.getSymbolAtLocation(decl.name);
  return sym?.declarations?.find((d) => ts.isFunctionLike(d) && d.body);
}

const SHAPES = {
  "src/context.ts": "export class Ctx { constructor(readonly user: number) {} }\n",
  "src/connection.ts": [
    'import { Ctx } from "./context";',
    "export function pick(a: string): string;",
    "export function pick(a: number, b: number): number;",
    "export function pick(a: any, b?: any): any { return a; }",
    "export function same(a: string): string;",
    "export function same(a: number): number;",
    "export function same(a: any): any { return a; }",
    "export function withVoid(a: string, b: void): string;",
    "export function withVoid(a: number): number;",
    "export function withVoid(a: any, b?: any): any { return a; }",
    "export class Connection {",
    "  repo(target: string): string[];",
    "  repo(ctx: Ctx | undefined, target: string, options?: { lock: boolean }): string[];",
    "  repo(a: any, b?: any, c?: any): string[] { return [String(a), String(b), String(c)]; }",
    "  rest(first: number, ...more: number[]): number;",
    "  rest(first: string): string;",
    "  rest(first: any, ...more: any[]): any { return first; }",
    "  plain(n: number): number { return n; }",
    "}",
    "export class Other { plain(n: number): number { return n + 1; } }",
    "export interface Port { send(n: number): void; }",
    "",
  ].join("\n"),
  "src/service.ts": [
    'import { Ctx } from "./context";',
    'import { Connection, Other, Port, pick, same, withVoid } from "./connection";',
    'import { missing } from "./not-there";',
    "export class Service {",
    "  handler: (n: number) => void = (n) => undefined;",
    "  constructor(private connection: Connection, private port: Port) {}",
    "  run(ctx: Ctx, either: Connection | Other, xs: number[], cb: (n: number) => number, maybe?: () => void, orNull: ((s: string) => void) | null = null) {",
    "    cb(1); maybe?.(); orNull!('a'); this.handler(2);",
    "    const local: (n: number) => number = cb;",
    "    local(3);",
    "    const inferred = cb;",
    "    inferred(4);",
    "    this.connection.repo('a');",
    "    this.connection.repo(ctx, 'a');",
    "    this.connection.repo(ctx, 'a', { lock: true });",
    "    this.connection.repo(undefined, 'b');",
    "    this.connection.rest(1, 2, 3);",
    "    this.connection.rest('x');",
    "    this.connection.plain(1);",
    "    either.plain(2);",
    "    this.port.send(3);",
    "    pick('a'); pick(1, 2); same(1); same('x'); withVoid(1);",
    "    pick(...(['a'] as [string]));",
    "    this.connection.repo<never>('c' as never);",
    "    missing(xs.map((x) => x + 1));",
    "  }",
    "}",
    "",
  ].join("\n"),
};

test("an overload set with one implementation is decided by its declarations; union members and interface methods are not", () => {
  withShapes(({ setup, fresh, sf }) => {
    const decided = new Map();
    for (const call of calls(sf)) {
      const name = calleeNameNode(call);
      const impl = name && implementationByName(setup.checker, name);
      decided.set(call.getText(), !!impl);
      if (impl) same(impl, implementationOf(fresh, fresh.getResolvedSignature(call).declaration), call);
    }
    assert.equal(decided.get("this.connection.repo(ctx, 'a')"), true);
    assert.equal(decided.get("this.connection.plain(1)"), true);
    assert.equal(decided.get("pick(1, 2)"), true);
    assert.equal(decided.get("either.plain(2)"), false); // two classes' methods: two bodies
    assert.equal(decided.get("this.port.send(3)"), false); // an interface method has none
    assert.equal(decided.get("missing(xs.map((x) => x + 1))"), false);
  });
});

test("the overload an argument count alone admits is the one the checker resolves; counts that admit several or none, spreads, type arguments and `void` parameters are left to it", () => {
  withShapes(({ setup, fresh, sf }) => {
    const picked = new Map();
    for (const call of calls(sf)) {
      const overload = overloadByArity(setup.checker, call);
      if (overload) same(overload, fresh.getResolvedSignature(call).declaration, call);
      picked.set(call.getText(), overload ? overload.parameters.length : undefined);
    }
    assert.equal(picked.get("this.connection.repo('a')"), 1);
    assert.equal(picked.get("this.connection.repo(ctx, 'a')"), 3);
    assert.equal(picked.get("this.connection.repo(ctx, 'a', { lock: true })"), 3);
    assert.equal(picked.get("this.connection.repo(undefined, 'b')"), 3);
    assert.equal(picked.get("this.connection.rest(1, 2, 3)"), 2); // only the rest parameter takes three
    assert.equal(picked.get("pick('a')"), 1);
    assert.equal(picked.get("pick(1, 2)"), 2);
    // both take one argument: the types decide
    assert.equal(picked.get("same(1)"), undefined);
    assert.equal(picked.get("this.connection.rest('x')"), undefined);
    // a `void` parameter may be left out: `withVoid(1)` fits both by count
    assert.equal(picked.get("withVoid(1)"), undefined);
    assert.equal(picked.get("pick(...(['a'] as [string]))"), undefined);
    assert.equal(picked.get("this.connection.repo<never>('c' as never)"), undefined);
    // not overloads at all
    assert.equal(picked.get("this.connection.plain(1)"), undefined);
    assert.equal(picked.get("either.plain(2)"), undefined);
  });
});

test("a name imported from a module the program lacks resolves to no signature declaration", () => {
  withShapes(({ setup, fresh, sf }) => {
    const unresolved = [];
    for (const call of calls(sf)) {
      const name = calleeNameNode(call);
      if (!name || !unresolvedImport(setup.checker, name)) continue;
      unresolved.push(call.expression.getText());
      assert.equal(fresh.getResolvedSignature(call)?.declaration, undefined);
    }
    assert.deepEqual(unresolved, ["missing"]);
  });
});

test("on every sample call, the answers decided from declarations are the checker's", () => {
  let implementations = 0, overloads = 0;
  for (const { dir } of sampleApps()) {
    const setup = program(dir);
    const fresh = setup.program.getTypeChecker();
    for (const sf of setup.files) {
      for (const call of calls(sf)) {
        const name = calleeNameNode(call);
        if (!name) continue;
        const impl = implementationByName(setup.checker, name);
        if (impl) {
          implementations++;
          same(impl, implementationOf(fresh, fresh.getResolvedSignature(call).declaration), call);
        }
        const overload = overloadByArity(setup.checker, call);
        if (overload) {
          overloads++;
          same(overload, fresh.getResolvedSignature(call).declaration, call);
        }
        if (unresolvedImport(setup.checker, name)) assert.equal(fresh.getResolvedSignature(call)?.declaration, undefined);
        if (declaredWithoutBody(setup.checker, name)) assert.ok(!fresh.getResolvedSignature(call).declaration?.body, call.getText());
        // (a library's callee is answered by its declaration file, not its signature: call-target.test.js)
        if (!libraryDeclaration(setup.checker, call)) same(calledDeclaration(setup.checker, call), fresh.getResolvedSignature(call)?.declaration, call);
      }
    }
  }
  assert.ok(implementations > 20, `only ${implementations} implementations decided`);
  assert.ok(overloads >= 1, "no overload decided by its argument count");
});

test("a callee declared without a body resolves to a declaration without one; a function-typed value's signature is its annotation", () => {
  withShapes(({ setup, fresh, sf }) => {
    const bodiless = [];
    for (const call of calls(sf)) {
      const name = calleeNameNode(call);
      if (!name || !declaredWithoutBody(setup.checker, name)) continue;
      bodiless.push(call.expression.getText());
      const decl = fresh.getResolvedSignature(call).declaration;
      assert.ok(decl && !decl.body, call.getText());
      same(calledDeclaration(setup.checker, call), decl, call);
    }
    // `inferred` has no annotation, `either.plain` and the connection's methods have bodies;
    // the library's `Array.map` is declared by method signatures
    assert.deepEqual(bodiless, ["cb", "maybe", "orNull!", "this.handler", "local", "this.port.send", "xs.map"]);
  });
});
