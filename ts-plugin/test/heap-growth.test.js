// The full collections of a large heap during the autocommit walks (scan.ts, HeapGrowth): a
// heap that grew past the allowance since the last collection is collected, one that did not is
// left alone, and without --expose-gc nothing is ever forced. Run in a node of its own, started
// as analyzer/typeorm/bridge.py starts the front end; thresholds are lowered so that a few
// megabytes count as a large heap.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const { execFileSync } = require("child_process");

const SCAN = path.resolve(__dirname, "..", "dist", "scan.js");

/** Runs `body` (JavaScript, with `HeapGrowth` and `majors()` in scope) in a fresh node; its printed JSON. */
function inNode(flags, body) {
  const script = `
    const { HeapGrowth } = require(${JSON.stringify(SCAN)});
    const { PerformanceObserver, constants } = require("perf_hooks");
    let seen = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen++; })
      .observe({ entryTypes: ["gc"] });
    const majors = () => new Promise((done) => setTimeout(() => done(seen), 50));
    (async () => { ${body} })().then((out) => process.stdout.write(JSON.stringify(out)));`;
  return JSON.parse(execFileSync(process.execPath, [...flags, "-e", script], { encoding: "utf8" }));
}

const GROW_AND_CHECK = `
  const growth = new HeapGrowth(4 * 1024 * 1024, 1);
  growth.collect();
  const before = await majors();
  const quiet = [];
  for (let i = 0; i < 64; i++) quiet.push(growth.check());
  const kept = [];
  for (let i = 0; i < 64 * 1024; i++) kept.push({ i, text: "x".repeat(64) + i });
  const grown = [];
  for (let i = 0; i < 64; i++) grown.push(growth.check());
  const after = await majors();
  return { quiet: quiet.filter(Boolean).length, grown: grown.filter(Boolean).length, forced: after - before, kept: kept.length };`;

test("a large heap that grew past the allowance is collected in full, once per growth", () => {
  const out = inNode(["--expose-gc"], GROW_AND_CHECK);
  assert.equal(out.quiet, 0, "no growth since the last collection: nothing forced");
  assert.equal(out.grown, 1, "looked at on the 64th call only");
  assert.ok(out.forced >= 1, `a major collection ran (${out.forced})`);
});

test("without --expose-gc no collection is forced", () => {
  const out = inNode([], GROW_AND_CHECK);
  assert.equal(out.quiet, 0);
  assert.equal(out.grown, 0);
});
