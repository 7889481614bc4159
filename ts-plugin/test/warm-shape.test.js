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

function shape(text) {
  return fileShape(ts.createSourceFile("a.ts", text, ts.ScriptTarget.Latest, true));
}

test("units are the bodies of constructors and of functions with a declared return type", () => {
  const s = shape(SOURCE);
  // archive (line 3), the constructor (12), total (15); the arrow inside total is part of it
  assert.deepEqual(Object.keys(s.units).sort(), ["12:56", "15:19", "3:82"]);
});

test("a changed unit changes only that unit's digest", () => {
  const before = shape(SOURCE);
  const after = shape(SOURCE.replace('{ status: "archived" }', '{ status: "closed" }'));
  assert.equal(after.shape, before.shape);
  assert.equal(after.placed, before.placed);
  assert.notEqual(after.units["3:82"], before.units["3:82"]);
  assert.equal(after.units["15:19"], before.units["15:19"]);
});

test("a unit that grows by a line moves what follows: same shape, other positions", () => {
  const before = shape(SOURCE);
  const after = shape(SOURCE.replace('{ status: "archived" });\n', '{ status: "archived" });\n  await manager.delete("order", { id });\n'));
  assert.equal(after.shape, before.shape);
  assert.notEqual(after.placed, before.placed);
  assert.ok(after.units["16:19"] && !after.units["15:19"]);
});

test("a body whose return type is inferred, a signature and a declaration are the shape", () => {
  const before = shape(SOURCE);
  for (const [from, to] of [['manager.count("order")', 'manager.count("line")'], ["id: number)", "id: string)"],
    ["private readonly manager", "private manager"]]) {
    assert.notEqual(shape(SOURCE.replace(from, to)).shape, before.shape, `${from} -> ${to}`);
  }
});

test("comments between statements are neither shape nor unit; comments inside a statement are", () => {
  const before = shape(SOURCE);
  const trailing = shape(SOURCE + "\n// a note\n");
  assert.deepEqual(trailing, before);
  const inside = shape(SOURCE.replace("  total(): number {", "  // the total\n  total(): number {"));
  assert.notEqual(inside.shape, before.shape);
});

test("the unit holding a node is the outermost unit around it", () => {
  const sf = ts.createSourceFile("a.ts", SOURCE, ts.ScriptTarget.Latest, true);
  const cls = sf.statements.find(ts.isClassDeclaration);
  const total = cls.members.find((m) => ts.isMethodDeclaration(m));
  const arrow = total.body.statements[0].declarationList.declarations[0].initializer;
  assert.equal(enclosingUnit(arrow.body), total.body);
  const inferred = sf.statements.find((s) => ts.isFunctionDeclaration(s) && s.name.text === "inferred");
  assert.equal(enclosingUnit(inferred.body), undefined);
});
