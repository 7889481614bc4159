// The per-node answer tables (src/checker-memo.ts NodeTable) keep their slots in pages of node
// numbers: every answer kept is given back for its own node, whatever the pages in between,
// in whatever order the numbers were first met.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const ts = require("typescript");
const { NodeTable } = require("../dist/checker-memo");

/** Every node of a parsed file of `count` statements (thousands of nodes: several pages of numbers). */
function nodesOf(count) {
  const text = Array.from({ length: count }, (_, i) => `const v${i} = f(${i}, "s${i}");`).join("\n");
  const sf = ts.createSourceFile("pages.ts", text, ts.ScriptTarget.ES2021, true);
  const nodes = [];
  const visit = (n) => {
    nodes.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return nodes;
}

test("answers spread over many pages of node numbers are each given back for their own node", () => {
  const nodes = nodesOf(1500);
  // numbered from the last node to the first, then kept from the first: the first answers
  // kept fall on the highest pages, before any lower page exists
  for (let i = nodes.length - 1; i >= 0; i--) ts.getNodeId(nodes[i]);
  const ids = nodes.map((n) => ts.getNodeId(n));
  assert.ok(Math.max(...ids) - Math.min(...ids) > 4 * 1024, "the numbers span several pages");
  const table = new NodeTable();
  const expected = new Map();
  const computed = new Map();
  const answer = (n) => {
    computed.set(n, (computed.get(n) ?? 0) + 1);
    return ts.isStringLiteral(n) ? n.text : ts.isIdentifier(n) ? undefined : n.kind;
  };
  // every third node only: pages hold unasked slots next to kept answers, `undefined` ones too
  const asked = nodes.filter((_, i) => i % 3 === 0);
  for (const n of asked) expected.set(n, table.get(n, answer));
  for (const n of [...asked].reverse()) assert.equal(table.get(n, answer), expected.get(n));
  for (const n of asked) assert.equal(computed.get(n), 1, "computed once");
  for (const n of nodes) assert.equal(table.peek(n), expected.get(n), "a node never asked has no answer");
  table.set(nodes[1], "set");
  assert.equal(table.peek(nodes[1]), "set");
  assert.equal(table.peek(nodes[4]), undefined);
});
