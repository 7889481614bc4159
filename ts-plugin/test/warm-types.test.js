// The signature a function whose return type is inferred lends its callers (src/warm-types.ts):
// what the warm cache compares in place of the function's code.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const ts = require("typescript");
const { inferredSignature } = require("../dist/warm-types");

/** The printed signature of the function named `name` in a one-file program of `text`. */
function signature(text, name) {
  const file = "/virtual/a.ts";
  const options = { target: ts.ScriptTarget.ES2020, strict: true, noLib: false };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (f, v, ...rest) => (f === file ? ts.createSourceFile(f, text, v, true) : read(f, v, ...rest));
  host.fileExists = ((exists) => (f) => f === file || exists(f))(host.fileExists.bind(host));
  const program = ts.createProgram([file], options, host);
  let found;
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.name && n.name.text === name) found = n;
    ts.forEachChild(n, visit);
  };
  visit(program.getSourceFile(file));
  return inferredSignature(program.getTypeChecker(), found);
}

const SOURCE = `export class Order { id = 0; }
export class Invoice { id = 0; total = 0; }
export function pick(id: number) {
  return { order: new Order(), id };
}
`;

test("code that keeps the inferred type keeps the signature; code that changes it changes it", () => {
  const before = signature(SOURCE, "pick");
  assert.ok(before);
  assert.equal(signature(SOURCE.replace("  return", "  void 0;\n  const unused = id + 1;\n  return"), "pick"), before);
  assert.notEqual(signature(SOURCE.replace("new Order()", "new Invoice()"), "pick"), before);
  assert.notEqual(signature(SOURCE.replace("{ order: new Order(), id }", "{ order: new Order(), id: String(id) }"), "pick"), before);
});

test("async, generator and type predicate bodies lend their inferred types", () => {
  const source = `export async function load() { return 1; }
export function* ids() { yield 1; return "done"; }
export function isOrder(x: unknown) { return typeof x === "number"; }
`;
  assert.match(signature(source, "load"), /Promise<number>/);
  assert.notEqual(signature(source.replace("return 1", 'return "1"'), "load"), signature(source, "load"));
  assert.notEqual(signature(source.replace('return "done"', "return 2"), "ids"), signature(source, "ids"));
  // an inferred type predicate (x is number) is part of what callers see
  assert.notEqual(signature(source.replace('typeof x === "number"', 'typeof x === "string"'), "isOrder"), signature(source, "isOrder"));
});

test("a function with properties the body gives it is printed with them", () => {
  const source = `export function counter() {
  const next = () => 1;
  next.step = 2;
  return next;
}
`;
  assert.notEqual(signature(source.replace("next.step = 2", 'next.step = "2"'), "counter"), signature(source, "counter"));
});

test("a type printed as `typeof` a name is not compared (the name's meaning is not in the text)", () => {
  assert.equal(signature(`export class Order { id = 0; }\nexport function kind() { return Order; }\n`, "kind"), undefined);
});

test("a member of an object literal a variable holds lends the literal's type and the variable's", () => {
  // a custom repository: the members beside it see it through `this`, callers through the variable
  const source = `export class Order { id = 0; }
export class Invoice { id = 0; total = 0; }
function custom<Methods>(methods: Methods & ThisType<Methods>): Methods { return methods; }
export const orders = custom({
  pick() { return new Order(); },
  again() { return this.pick().id; },
});
`;
  const before = signature(source, "again");
  assert.ok(before);
  assert.equal(signature(source.replace("return this.pick().id;", "void 0;\n    return this.pick().id;"), "again"), before);
  // a change of the sibling's type is seen from here too (this one's own stays `(): number`)
  assert.notEqual(signature(source.replace("new Order()", "new Invoice()"), "again"), before);
  assert.match(before, /\{ pick\(\): [^;]*\.Order; again\(\): number; \}/);
});
