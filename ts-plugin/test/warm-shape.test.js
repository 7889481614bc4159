// The shape and units of a file (src/warm-shape.ts): what the warm cache compares. A unit is
// the body of a function whose type cannot depend on it; everything else is the shape.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const ts = require("typescript");
const { fileShape, enclosingUnit } = require("../dist/warm-shape");

const SOURCE = `import { EntityManager } from "typeorm";

export async function archive(manager: EntityManager, id: number): Promise<void> {
  await manager.update("order", { id }, { status: "archived" });
}

export async function inferred(manager: EntityManager) {
  return manager.count("order");
}

export class Orders {
  constructor(private readonly manager: EntityManager) {
    this.manager = manager;
  }
  total(): number {
    const add = (a: number): number => { return a + 1; };
    return add(1);
  }
}
`;

function shape(text, name = "a.ts") {
  return fileShape(ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true));
}

/** What a scan without the checker compares of a file: its shape and the code of its units whose
 *  signature stands for their code. */
function typing(s) {
  return JSON.stringify([s.shape, s.signed ?? {}]);
}

test("units are the bodies of functions, numbered in order", () => {
  const s = shape(SOURCE);
  // archive (line 3), inferred (7), the constructor (12), total (15); the arrow inside total is part of it
  assert.equal(s.units.length, 4);
  const opens = [...s.kinds].flatMap((k, i) => (k === "O" ? [s.anchors[2 * i] + 1] : []));
  assert.deepEqual(opens, [3, 7, 12, 15]);
});

test("a function whose return type is inferred keeps its tokens apart from the shape: code changes them, comments do not", () => {
  const before = shape(SOURCE);
  assert.deepEqual(Object.keys(before.signed), ["1"]);
  const commented = shape(SOURCE.replace('  return manager.count("order");\n', '  // how many\n\n  return manager.count("order");\n'));
  assert.equal(typing(commented), typing(before));
  assert.notEqual(commented.units[1], before.units[1]);
  const split = shape(SOURCE.replace('  return manager.count("order");\n', '  return\n  manager.count("order");\n'));
  assert.equal(split.shape, before.shape);
  assert.notEqual(split.signed["1"], before.signed["1"]);
});

test("an inferred body lending more than its signature keeps its tokens in the shape", () => {
  const body = '  return manager.count("order");\n';
  const lending = [
    // passed as an argument: its return type takes part in the call's inference
    ["export const counted = wrap(async (manager: EntityManager) => {\n" + body + "});\n", "a.ts"],
    // a method of an object literal that is one of several arguments (it may type the others),
    // or that no variable holds
    ["export const counts = wrap({ async all(manager: EntityManager) {\n" + body + "} }, 1);\n", "a.ts"],
    ["register({ async all(manager: EntityManager) {\n" + body + "} });\n", "a.ts"],
    // a body declaring a type (printed by a name that stays when it changes)
    ["export function kinds() {\n  class Kind { a = 1; }\n  return new Kind();\n}\n", "a.ts"],
    // JavaScript: a body may declare a class's members
    ["export function Kind() {\n  this.a = 1;\n}\n", "a.js"],
  ];
  for (const [source, name] of lending) {
    const before = shape(source, name);
    assert.equal(before.signed, undefined, source);
    assert.notEqual(shape(source.replace(/\n}/, "\n  void 0;\n}"), name).shape, before.shape, source);
  }
  // held by a variable, a method of a class, or a member of an object literal a variable holds
  // (a custom repository's): its signature is compared instead
  for (const source of ["export const all = async (manager: EntityManager) => {\n" + body + "};\n",
    "export class Counts {\n  async all(manager: EntityManager) {\n" + body + "  }\n}\n",
    "export const counts = { async all(manager: EntityManager) {\n" + body + "} };\n",
    "export const counts = source.getRepository(Order).extend({ all: async (manager: EntityManager) => {\n" + body + "} });\n"]) {
    const before = shape(source);
    assert.deepEqual(Object.keys(before.signed), ["0"], source);
    assert.equal(shape(source.replace(body, "  void 0;\n" + body)).shape, before.shape, source);
  }
});

test("tokens of an inferred body are read as the parser reads them: templates, divisions, regular expressions", () => {
  const body = (line) => shape(SOURCE.replace('  return manager.count("order");\n', line));
  const template = '  return `/*${id}*/ //${manager.count("order")}// order`;\n';
  // what follows a substitution is template text, not a comment
  assert.notEqual(typing(body(template.replace("// order", "// line"))), typing(body(template)));
  assert.equal(typing(body("  // the count\n" + template)), typing(body(template)));
  const slashes = '  return (await manager.count("order")) / 2 + "a/b".split(/\\/\\/*/).length;\n';
  assert.notEqual(typing(body(slashes.replace("/*/", "/+/"))), typing(body(slashes)));
  assert.equal(typing(body("  /* half */\n" + slashes)), typing(body(slashes)));
});

test("a changed unit changes only that unit's digest", () => {
  const before = shape(SOURCE);
  const after = shape(SOURCE.replace('{ status: "archived" }', '{ status: "closed" }'));
  assert.equal(after.shape, before.shape);
  assert.notEqual(after.units[0], before.units[0]);
  assert.deepEqual(after.units.slice(1), before.units.slice(1));
});

test("a unit that grows by a line moves what follows: same shape and units after it, other positions", () => {
  const before = shape(SOURCE);
  const after = shape(SOURCE.replace('{ status: "archived" });\n', '{ status: "archived" });\n  await manager.delete("order", { id });\n'));
  assert.equal(after.shape, before.shape);
  assert.notEqual(after.placed, before.placed);
  assert.deepEqual(after.units.slice(1), before.units.slice(1));
  assert.equal(after.kinds, before.kinds);
  // every anchor after the grown unit is one line further down
  const closes = before.kinds.indexOf("C");
  for (let i = closes + 1; i < before.kinds.length; i++) assert.equal(after.anchors[2 * i], before.anchors[2 * i] + 1);
});

test("comments and blank lines between a top-level class's members and decorators are not its shape", () => {
  const source = SOURCE.replace("  total(): number {", "  @Log()\n  @Timed()\n  total(): number {");
  const before = shape(source);
  for (const edited of [
    source.replace("  @Timed()\n", "  // why it is timed\n  @Timed()\n"),
    source.replace("  @Log()\n", "\n\n  @Log()\n"),
    source.replace("  total(): number {", "  /* the sum */ total(): number {"),
  ]) {
    const after = shape(edited);
    assert.equal(after.shape, before.shape);
    assert.notEqual(after.placed, before.placed);
    assert.deepEqual(after.units, before.units);
  }
  // ... but a comment inside an expression is, and so is one that joins two lines' tokens
  assert.notEqual(shape(source.replace("@Timed()", "@Timed(/* ms */)")).shape, before.shape);
  assert.notEqual(shape(source.replace("  @Log()\n  @Timed()", "  @Log() @Timed()")).shape, before.shape);
});

test("a member's comment that autocommit's prefilter would read is in the shape through its answer", () => {
  const source = SOURCE.replace("  total(): number {", "  @Log()\n  total(): number {");
  const plain = shape(source.replace("  @Log()\n", "  @Log()\n  // note\n"));
  const calls = shape(source.replace("  @Log()\n", "  @Log()\n  // this.repo.save(order)\n"));
  assert.notEqual(calls.shape, plain.shape);
});

test("the code of a body whose return type is inferred, a signature and a declaration are compared without the checker", () => {
  const before = shape(SOURCE);
  assert.notEqual(typing(shape(SOURCE.replace('manager.count("order")', 'manager.count("line")'))), typing(before));
  for (const [from, to] of [["id: number)", "id: string)"],
    ["private readonly manager", "private manager"]]) {
    assert.notEqual(shape(SOURCE.replace(from, to)).shape, before.shape, `${from} -> ${to}`);
  }
});

test("comments between statements are neither shape nor unit; comments inside a statement are", () => {
  const before = shape(SOURCE);
  const trailing = shape(SOURCE + "\n// a note\n");
  assert.deepEqual(trailing, before);
  const inside = shape(SOURCE.replace("constructor(private", "constructor(/* the database */ private"));
  assert.notEqual(inside.shape, before.shape);
});

test("the unit holding a node is the outermost unit around it", () => {
  const sf = ts.createSourceFile("a.ts", SOURCE, ts.ScriptTarget.Latest, true);
  const cls = sf.statements.find(ts.isClassDeclaration);
  const total = cls.members.find((m) => ts.isMethodDeclaration(m));
  const arrow = total.body.statements[0].declarationList.declarations[0].initializer;
  assert.equal(enclosingUnit(arrow.body), total.body);
  assert.equal(enclosingUnit(cls), undefined);
});

test("shaping a file counts its lines as the compiler does, and leaves no line map on the file", () => {
  // every kind of line break the compiler counts: \n, \r\n, a lone \r, U+2028 and U+2029
  const text = SOURCE.replace("\n\nexport async function inferred", "\r\n\r\nexport async function inferred")
    .replace("\n\nexport class", "\r\u2028export class").replace("  total(): number {", "\u2029  total(): number {");
  const sf = ts.createSourceFile("a.ts", text, ts.ScriptTarget.Latest, true);
  const s = fileShape(sf);
  // the warm cache shapes every file of the project; most of them no record ever gives a line of
  assert.equal(sf.lineMap, undefined);
  const { positions } = require("../dist/warm-shape").layoutOf(sf);
  const expected = positions.flatMap((pos) => {
    const at = sf.getLineAndCharacterOfPosition(pos);
    return [at.line, at.character];
  });
  assert.deepEqual(s.anchors, expected);
});

// Moves (src/warm-moves.ts): a kept value naming no location of a file whose positions changed is
// given back as it is (not copied); one that does is moved or refused as before.
test("kept records are moved only where they name a file whose positions changed", () => {
  const { Moves, Unmovable } = require("../dist/warm-moves");
  const grown = SOURCE.replace('{ status: "archived" });\n', '{ status: "archived" });\n  await manager.delete("order", { id });\n');
  const then = { "src/a.ts": { content: "1", shape: shape(SOURCE) }, "src/b.ts": { content: "2", shape: shape(SOURCE) } };
  const now = { "src/a.ts": { content: "3", shape: shape(grown) }, "src/b.ts": { content: "2", shape: shape(SOURCE) } };
  const moves = new Moves(then, now);
  // line 14 (the constructor's body) is one line further down in a.ts; b.ts did not change
  const step = (file, line) => ({ node: "statement", file, line, via: ["src.a.Orders.constructor"] });
  const tx = (file, line, steps) => ({ id: `${file}:${line}`, file, line, end_line: line + 2, function: `src.b.run.then@${line}`, steps });
  const untouched = [tx("src/b.ts", 14, [step("src/b.ts", 15)])];
  assert.equal(moves.moved(untouched), untouched);
  const touched = [tx("src/b.ts", 14, [step("src/a.ts", 14)])];
  const movedRecord = moves.moved(touched);
  assert.notEqual(movedRecord, touched);
  assert.deepEqual(movedRecord, [tx("src/b.ts", 14, [step("src/a.ts", 15)])]);
  // a name with a line in a.ts's module moves too
  assert.deepEqual(moves.moved(["src.a.Orders.total.then@18"]), ["src.a.Orders.total.then@19"]);
  // refused as before: a line inside the grown unit, an id of a form that cannot be moved
  assert.throws(() => moves.moved([step("src/a.ts", 4)]), Unmovable);
  assert.throws(() => moves.moved([{ id: "src/b.ts:14#2", file: "src/b.ts", line: 14 }]), Unmovable);
});
