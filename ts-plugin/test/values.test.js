// The walk's value joins (src/values.ts normSources, src/walker.ts mergeEnvs) give what their
// first, allocation-heavy forms gave: sources deduplicated and ordered by kind, step and name,
// a constant or unknown dropped next to better sources; bindings joined only where arms differ.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { normSources, union, allSources } = require("../dist/values");
const { mergeEnvs } = require("../dist/walker");

const KINDS = ["input", "constant", "result", "generated", "expression", "external", "unknown"];

/** The ordering as first written: a Map by text key, its entries sorted by key. */
function reference(list) {
  const key = (s) => `${KINDS.indexOf(s.kind)}|${s.step ? s.step.padStart(6, "0") : ""}|${s.name ?? ""}`;
  const map = new Map();
  for (const s of list) {
    const c = { kind: s.kind };
    if (s.name !== undefined) c.name = s.name;
    if (s.step !== undefined) c.step = s.step;
    map.set(key(c), c);
  }
  let out = [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
  if (out.length > 1) out = out.filter((s) => s.kind !== "constant");
  if (out.length > 1) out = out.filter((s) => s.kind !== "unknown");
  return out;
}

/** A deterministic pseudo-random source list (short and long ones, many repeats). */
function sourcesOf(seed) {
  let x = seed * 7919 + 13;
  const next = (n) => ((x = (x * 1103515245 + 12345) % 2147483648) % n);
  const list = [];
  const n = next(5) === 0 ? 17 + next(30) : next(7);
  for (let i = 0; i < n; i++) {
    const kind = KINDS[next(KINDS.length)];
    const s = { kind };
    if (kind === "input" || kind === "expression") s.name = ["ctx", "dto.id", "input", "a", ""][next(5)];
    if (kind === "result" || kind === "generated" || kind === "external") s.step = `s${next(3) === 0 ? 100 + next(20) : 1 + next(12)}`;
    if (next(9) === 0) s.extra = "dropped";
    list.push(s);
  }
  return list;
}

test("sources are deduplicated and ordered as the first form ordered them, short and long lists", () => {
  let long = 0;
  for (let seed = 0; seed < 3000; seed++) {
    const list = sourcesOf(seed);
    if (list.length > 16) long++;
    assert.deepEqual(normSources(list), reference(list), JSON.stringify(list));
  }
  assert.ok(long > 100);
});

test("a step's sources order by step number, a constant and an unknown go next to real sources", () => {
  const out = normSources([{ kind: "result", step: "s10" }, { kind: "constant" }, { kind: "input", name: "ctx" }, { kind: "result", step: "s9" }, { kind: "unknown" }, { kind: "result", step: "s9" }]);
  assert.deepEqual(out, [{ kind: "input", name: "ctx" }, { kind: "result", step: "s9" }, { kind: "result", step: "s10" }]);
  assert.deepEqual(normSources([{ kind: "constant" }, { kind: "constant" }]), [{ kind: "constant" }]);
  assert.deepEqual(normSources([]), []);
});

test("all sources of a value: its own, then members, items, elements, operator arguments and row", () => {
  const v = {
    sources: [{ kind: "input", name: "a" }],
    props: new Map([["x", { sources: [{ kind: "constant" }] }]]),
    items: [{ sources: [{ kind: "result", step: "s2" }] }],
    obj: { entity: "User", origin: "loaded", step: "s3", insertStep: "s4", fields: new Map([["n", { sources: [{ kind: "input", name: "b" }] }]]) },
  };
  assert.deepEqual(allSources(v), [
    { kind: "input", name: "a" }, { kind: "constant" }, { kind: "result", step: "s2" },
    { kind: "result", step: "s3" }, { kind: "generated", step: "s4" }, { kind: "input", name: "b" },
  ]);
  assert.deepEqual(allSources(undefined), []);
});

test("bindings not written in any arm stay the same object; written ones are joined; key order is first seen", () => {
  const a = { sources: [{ kind: "input", name: "a" }] };
  const b = { sources: [{ kind: "input", name: "b" }] };
  const b2 = { sources: [{ kind: "result", step: "s1" }] };
  const c = { sources: [{ kind: "result", step: "s2" }] };
  const [A, B, C] = [{ name: "A" }, { name: "B" }, { name: "C" }]; // symbols are compared by identity
  const before = new Map([[A, a], [B, b]]);
  const then = new Map([[A, a], [B, b2], [C, c]]);
  const otherwise = new Map([[A, a], [B, b]]);
  const out = mergeEnvs([then, otherwise], before);
  assert.deepEqual([...out.keys()], [A, B, C]);
  assert.equal(out.get(A), a);
  assert.deepEqual(out.get(B), union(b2, b));
  assert.equal(out.get(C), c);
  // an arm that leaves does not count; none left: the bindings before
  assert.equal(mergeEnvs([undefined, otherwise], before).get(B), b);
  assert.equal(mergeEnvs([undefined, undefined], before), before);
  // three arms, two of them the same value: joined once each
  const third = new Map([[B, b2]]);
  assert.deepEqual(mergeEnvs([then, otherwise, third], before).get(B), union(b2, b));
});
