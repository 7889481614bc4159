// The compiler's code cache (src/code-cache.ts): made by scanning a sample, taken by a node
// started with a scan's flags, refused (and the compiler compiled as usual) when V8 or the text
// differ, and never a change to what a scan prints.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const { SAMPLES } = require("./helpers");

const DIST = path.join(__dirname, "..", "dist");
const MODULES = path.join(__dirname, "..", "..", "node_modules");
const SAMPLE = path.join(SAMPLES, "nest-shop");
const SETTINGS = JSON.stringify({ exclude: [], maxFileBytes: 2000000 });

function withScratch(fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-code-cache-"));
  try {
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function node(args, options = {}) {
  return execFileSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, NODE_PATH: MODULES }, ...options });
}

/** A cache made by make-code-cache.js from a scan of the sample. */
function makeCache(file) {
  node(["--expose-gc", path.join(DIST, "make-code-cache.js"), "--out", file, SAMPLE]);
  return fs.readFileSync(file);
}

/** What a node started with `flags` makes of the cache `file`: its state once typescript.js is
 *  loaded, and whether the compiler works. */
function stateWith(file, flags = ["--expose-gc"]) {
  const script = `const c = require(${JSON.stringify(path.join(DIST, "code-cache.js"))});
    const installed = c.installCodeCache(${JSON.stringify(file)});
    const ts = require("typescript");
    const sf = ts.createSourceFile("a.ts", "const x: number = 1;", ts.ScriptTarget.Latest);
    process.stdout.write(JSON.stringify({ installed, state: c.codeCacheState(), statements: sf.statements.length }));`;
  return JSON.parse(node([...flags, "-e", script], { cwd: DIST }));
}

test("a cache made from a scan is taken by a node started as scans are", () => {
  withScratch((dir) => {
    const file = path.join(dir, "typescript.code-cache");
    const data = makeCache(file);
    assert.ok(data.length > 100_000, `a cache of ${data.length} bytes`);
    assert.match(data.subarray(0, 80).toString("latin1"), /^[0-9a-f]{80}$/);
    assert.deepEqual(stateWith(file), { installed: true, state: "accepted", statements: 1 });
  });
});

test("a cache made under other flags, damaged, or of another compiler text is not used; the compiler still loads", () => {
  withScratch((dir) => {
    const file = path.join(dir, "typescript.code-cache");
    const data = makeCache(file);
    // V8's own check: the flags a cache was made under
    assert.deepEqual(stateWith(file, []), { installed: true, state: "rejected", statements: 1 });
    // the data's digest (V8 checks their length only: these would crash node)
    const damaged = Buffer.from(data);
    damaged.fill(7, 80 + 64, 80 + 4096);
    fs.writeFileSync(file, damaged);
    assert.deepEqual(stateWith(file), { installed: true, state: "damaged", statements: 1 });
    // the text's digest
    fs.writeFileSync(file, Buffer.concat([Buffer.from("0".repeat(40), "latin1"), data.subarray(40)]));
    assert.deepEqual(stateWith(file), { installed: true, state: "stale", statements: 1 });
  });
});

test("without a cache file the loader is not installed", () => {
  withScratch((dir) => {
    assert.deepEqual(stateWith(path.join(dir, "none")), { installed: false, state: "absent", statements: 1 });
  });
});

test("a scan prints the same IR with the cache as without it", () => {
  withScratch((dir) => {
    // two copies of the compiled front end, one with a cache next to its modules
    const withCache = path.join(dir, "with");
    const without = path.join(dir, "without");
    for (const copy of [withCache, without]) {
      fs.cpSync(DIST, copy, { recursive: true, filter: (f) => !path.basename(f).startsWith("typescript.code-cache") });
    }
    makeCache(path.join(withCache, "typescript.code-cache"));
    const scan = (copy) => node(["--expose-gc", path.join(copy, "cli.js"), "--settings", SETTINGS, SAMPLE], { cwd: dir });
    const plain = scan(without);
    assert.match(plain, /"type":"transaction"/);
    assert.equal(scan(withCache), plain);
  });
});
