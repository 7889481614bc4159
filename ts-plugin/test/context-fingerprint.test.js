// A helper's calling context is compared by its fingerprint (src/walk-memo.ts): equal content
// gives equal tokens, step ids are kept apart to be renamed by rank, and a context that cannot
// be compared (a cycle, an object of a class, one too large) has none. Also the failing-read
// search of the walk (`mentionsStep`), which answers what searching the steps' JSON text did.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { ContextFingerprint, failingInContext, memoKey } = require("../dist/walk-memo");
const { mentionsStep } = require("../dist/walker");

const row = (step) => ({ sources: [{ kind: "result", step }], obj: { entity: "User", origin: "loaded", step, fields: new Map([["name", { sources: [{ kind: "input", name: "dto.name" }] }]]) } });

test("equal contexts give equal fingerprints, and a different member a different one", () => {
  const fp = new ContextFingerprint();
  const a = fp.of([[row("s3"), { sources: [{ kind: "constant" }], lit: { v: 5 } }], undefined]);
  const b = fp.of([[row("s3"), { sources: [{ kind: "constant" }], lit: { v: 5 } }], undefined]);
  const c = fp.of([[row("s3"), { sources: [{ kind: "constant" }], lit: { v: 6 } }], undefined]);
  assert.ok(a && b && c);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.tokens, c.tokens);
});

test("step ids are kept out of the tokens: contexts differing only in them share a memo key", () => {
  const fp = new ContextFingerprint();
  const state = fp.of(["mode", true]);
  const first = fp.of([[row("s3"), { sources: [{ kind: "result", step: "s7" }] }]]);
  const second = fp.of([[row("s10"), { sources: [{ kind: "result", step: "s14" }] }]]);
  const swapped = fp.of([[row("s14"), { sources: [{ kind: "result", step: "s10" }] }]]);
  assert.deepEqual(first.tokens, second.tokens);
  assert.deepEqual(first.ids, [3, 3, 7]);
  const k1 = memoKey(state, first);
  const k2 = memoKey(state, second);
  assert.deepEqual(k1.tokens, k2.tokens);
  assert.equal(k1.hash, k2.hash);
  assert.deepEqual(k2.order, [10, 14]);
  // the same ids in the other roles: another key
  assert.notDeepEqual(memoKey(state, swapped).tokens, k1.tokens);
});

test("a cycle, an object of a class and a context over the size limit have no fingerprint", () => {
  const fp = new ContextFingerprint();
  const loop = { sources: [] };
  loop.self = loop;
  assert.equal(fp.of([loop]), undefined);
  assert.equal(fp.comparable([loop]), false);
  class Frame {}
  assert.equal(fp.of([{ frame: new Frame() }]), undefined);
  // the same object twice, not nested, is no cycle
  const shared = { sources: [{ kind: "unknown" }] };
  assert.ok(fp.of([shared, shared]));
  // the limit is 50,000 characters of the context's text: one long string decides alone
  assert.ok(fp.of([["x".repeat(49_000)]]));
  assert.equal(fp.of([["x".repeat(50_001)]]), undefined);
  assert.equal(fp.comparable([["x".repeat(50_001)]]), false);
  // as do many small pieces
  const many = Array.from({ length: 30_000 }, (_, i) => i % 2 === 0);
  assert.equal(fp.of([many]), undefined);
  assert.ok(fp.of([many.slice(0, 5_000)]));
});

test("key paths name where each object of a context sits, its first place kept", () => {
  const fp = new ContextFingerprint();
  const inner = { sources: [{ kind: "unknown" }] };
  const outer = { props: new Map([["a", inner]]), items: [inner] };
  const paths = new Map();
  assert.ok(fp.of([[outer], undefined], paths));
  assert.deepEqual(paths.get(outer), [0, 0]);
  assert.deepEqual(paths.get(inner), [0, 0, "props", "m", "a"]);
});

test("failingInContext keeps the failing reads among the context's step ids, once each, in order", () => {
  assert.deepEqual(failingInContext(["s9", "s3", "s12", "s3", "x3", "s", "s03", "s1e1"], [12, 3, 4]), ["s3", "s12"]);
  assert.deepEqual(failingInContext([], [1]), []);
  assert.deepEqual(failingInContext(["s1"], []), []);
  // a number as Number() reads it (leading zeros, long ids)
  assert.deepEqual(failingInContext(["s007"], [7]), ["s7"]);
  assert.deepEqual(failingInContext(["s123456789012345678"], [123456789012345678]), ["s123456789012345680"]);
});

test("mentionsStep finds a step id where the steps' JSON text holds it quoted, and only there", () => {
  const cases = [
    [{ uses: ["s12"] }, ["s12"]],
    [{ uses: ["s123"] }, ["s12"]],
    [{ name: 'x"s12' }, ["s12"]],
    [{ name: "as12" }, ["s12"]],
    [{ s12: 1 }, ["s12"]],
    [{ fields: new Map([["k", "s12"]]) }, ["s12"]],
    [[undefined, "s3"], ["s3"]],
    [{ a: undefined, b: "s3x" }, ["s3"]],
    [{ deep: [{ sources: [{ kind: "result", step: "s9" }] }] }, ["s4", "s9"]],
  ];
  for (const [value, ids] of cases) {
    const text = JSON.stringify(value);
    assert.equal(mentionsStep(value, ids), ids.some((id) => text.includes(`"${id}"`)), text);
  }
});

test("the size limit measures a member's `:` though its token is not written", () => {
  const fp = new ContextFingerprint();
  const members = (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${1000 + i}`, true]));
  // 13 characters a member with its `:` (key, `:`, `true`, spaces), 11 without it
  assert.equal(fp.of([members(4000)]), undefined);
  const fits = fp.of([members(3000)]);
  assert.ok(fits);
  // no `:` token: per member its name's token and its value's, then the object's close
  assert.equal(fits.tokens.length, 2 + 3000 * 2 + 1 + 1);
  // a member's name and a string value of the same text are different tokens
  const named = fp.of([{ a: "b" }]);
  const other = fp.of([{ b: "a" }]);
  assert.notDeepEqual(named.tokens, other.tokens);
});

test("a walk state's fingerprint: equal parts give equal tokens, its step ids are ranked with the context's", () => {
  const fp = new ContextFingerprint();
  const fn = { kind: 1, pos: 0, end: 10 }; // compared by identity, as a node
  const other = { kind: 1, pos: 0, end: 10 };
  const a = fp.ofState([fn, true, "context", null, 1, fn], ["s4", "s9"]);
  const b = fp.ofState([fn, true, "context", null, 1, fn], ["s2", "s3"]);
  assert.deepEqual(a.tokens, b.tokens);
  assert.deepEqual(a.ids, [4, 9]);
  for (const changed of [[other, true, "context", null, 1, fn], [fn, false, "context", null, 1, fn], [fn, true, "runner", null, 1, fn], [fn, true, "context", null, 2, fn]]) {
    assert.notDeepEqual(fp.ofState(changed, ["s4", "s9"]).tokens, a.tokens);
  }
  assert.notDeepEqual(fp.ofState([fn, true, "context", null, 1, fn], ["s4"]).tokens, a.tokens);
  // ranked together with the context's ids: the same order, the same key
  const context = fp.of([[{ sources: [{ kind: "result", step: "s9" }] }]]);
  const later = fp.of([[{ sources: [{ kind: "result", step: "s3" }] }]]);
  assert.deepEqual(memoKey(a, context).tokens, memoKey(b, later).tokens);
  assert.notDeepEqual(memoKey(a, context).tokens, memoKey(b, fp.of([[{ sources: [{ kind: "result", step: "s2" }] }]])).tokens);
  assert.equal(fp.ofState([fn], Array.from({ length: 5001 }, (_, i) => `s${i}`)), undefined);
});
