// The full collections of a large heap during the autocommit walks (scan.ts, HeapGrowth): a
// heap that grew past the allowance since the last collection is collected, one that did not is
// left alone, and without --expose-gc nothing is ever forced. Run in a node of its own, started
// as analyzer/typeorm/bridge.py starts the front end; thresholds are lowered so that a few
// megabytes count as a large heap. The collection before the output (collectReleasedProgram)
// finds the program unreachable: no source file of the application is alive when the IR is
// rendered.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const { execFileSync } = require("child_process");

const SCAN = path.resolve(__dirname, "..", "dist", "scan.js");
const DIST = path.resolve(__dirname, "..", "dist");
const { SAMPLES } = require("./helpers");

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

/** In a fresh node: the application's source files alive when `setupProgram` returns and when
 *  the IR is rendered, counted after two full collections (alive: reachable). */
const LIVE_SOURCE_FILES = (app) => `
  const inspector = require("inspector");
  const ts = require("typescript");
  const program = require(${JSON.stringify(path.join(DIST, "program.js"))});
  const ir = require(${JSON.stringify(path.join(DIST, "ir.js"))});
  const { scan } = require(${JSON.stringify(SCAN)});
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => {
    let out, failure;
    session.post(method, { ...params, objectGroup: "count" }, (e, r) => { failure = e; out = r; });
    if (failure) throw failure;
    return out;
  };
  const app = ${JSON.stringify(app)};
  const alive = () => {
    // Two full collections first: a forced collection while V8 is marking incrementally ends
    // that marking, which began while the program was still reachable and keeps it; the second
    // marks from what is reachable now (queryObjects' own collection can be the first kind).
    gc();
    gc();
    globalThis.sourceFilePrototype = ts.objectAllocator.getSourceFileConstructor().prototype;
    const proto = post("Runtime.evaluate", { expression: "globalThis.sourceFilePrototype" }).result.objectId;
    const found = post("Runtime.queryObjects", { prototypeObjectId: proto }).objects.objectId;
    const n = post("Runtime.callFunctionOn", { objectId: found, arguments: [{ value: app }], returnByValue: true,
      functionDeclaration: "function (dir) { return this.filter((f) => f.fileName.startsWith(dir)).length; }" }).result.value;
    session.post("Runtime.releaseObjectGroup", { objectGroup: "count" });
    return n;
  };
  const counts = {};
  const setupProgram = program.setupProgram;
  program.setupProgram = (opts) => { const setup = setupProgram(opts); counts.built = alive(); return setup; };
  const renderIr = ir.renderIr;
  ir.renderIr = (...args) => { counts.rendered = alive(); return renderIr(...args); };
  const out = scan(app);
  counts.transactions = out.transactions.length;
  return counts;`;

test("the program is unreachable when the output is rendered, so the collection before it frees all of it", () => {
  const app = path.join(SAMPLES, "nest-shop");
  const out = inNode(["--expose-gc"], LIVE_SOURCE_FILES(app));
  assert.ok(out.transactions > 0);
  assert.ok(out.built > 5, `the program holds the application's files (${out.built})`);
  assert.equal(out.rendered, 0, "no source file of the application is alive at the IR's rendering");
});
