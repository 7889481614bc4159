// The warm cache (src/warm-cache.ts) seen from scan(): the samples scanned warm give the IR of
// a scan without a cache, a scan reused whole names the root it was given, and a changed helper
// walks again only what reaches it (tests/test_typescript_warm.py has each kind of edit).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { scan, scanBeforeCacheSave } = require("../dist/scan");

const { SAMPLES, sampleApps } = require("./helpers");

/** Runs `fn(dir, root)` on a copy of a sample (`root`, inside the scratch folder `dir`, which
 *  is removed afterwards), as helpers.js withApp does for inline apps. */
function withCopy(sample, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-warm-"));
  try {
    fs.cpSync(path.join(SAMPLES, sample), path.join(dir, sample), { recursive: true });
    return fn(dir, path.join(dir, sample));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function warm(dir, output = "all") {
  const report = path.join(dir, "report.json");
  return { settings: { file: path.join(dir, "cache.json"), key: "test", report, partial: true, output }, walked: () => JSON.parse(fs.readFileSync(report, "utf8")).walked };
}

for (const { name: sample } of sampleApps()) {
  test(`sample ${sample}: warm scans give the IR of a scan without a cache`, () => {
    withCopy(sample, (dir, root) => {
    const cache = warm(dir);
    const plain = scan(root).ir;
    assert.equal(scan(root, { warm: cache.settings }).ir, plain);
    assert.ok(cache.walked().length > 0);
    assert.equal(scan(root, { warm: cache.settings }).ir, plain);
    assert.deepEqual(cache.walked(), []);
    });
  });
}

test("a scan reused whole names the root it was given", () => {
  withCopy("nest-shop", (dir, root) => {
  const cache = warm(dir);
  scan(root, { warm: cache.settings });
  const other = path.join(dir, "moved");
  fs.renameSync(root, other);
  const ir = scan(other, { warm: cache.settings }).ir;
  assert.equal(JSON.parse(ir.split("\n")[0]).root, other);
  assert.equal(ir, scan(other).ir);
  });
});

test("the IR is ready before the cache file is written; the report of what was walked before both", () => {
  // the command line prints the IR, then writes the cache file (src/cli.ts): the Python side
  // reads the IR while the file is written
  withCopy("nest-shop", (dir, root) => {
  for (const round of ["cold", "reused whole"]) {
    const cache = warm(dir);
    // the cache file is replaced by a rename: a new file (inode) once written
    const inode = () => (fs.existsSync(cache.settings.file) ? fs.statSync(cache.settings.file).ino : undefined);
    const before = inode();
    if (fs.existsSync(cache.settings.report)) fs.rmSync(cache.settings.report);
    const { result, saveCache } = scanBeforeCacheSave(root, { warm: cache.settings });
    assert.equal(result.ir, scan(root).ir, round);
    assert.ok(fs.existsSync(cache.settings.report), round);
    assert.equal(inode(), before, round);
    saveCache();
    assert.notEqual(inode(), before, round);
    const written = fs.readFileSync(cache.settings.file, "utf8");
    // what scan() writes: the same file
    scan(root, { warm: cache.settings });
    assert.equal(fs.readFileSync(cache.settings.file, "utf8"), written, round);
  }
  });
});

/** Run `fn` and return what it wrote to stderr. */
function stderrOf(fn) {
  const write = process.stderr.write;
  let text = "";
  process.stderr.write = (chunk) => ((text += chunk), true);
  try {
    fn();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

test("damage that leaves the cache file valid JSON is seen by the body's digest: nothing of it is used", () => {
  // each mutation once made the warm scan fail with an internal error or reuse wrong data
  const mutations = {
    "a character of the last output": (t) => (t.outputs.all = t.outputs.all.replace('"line":', '"lint":')),
    "the last output not text": (t) => (t.outputs.all = 3),
    "a file's shape not an object": (t) => Object.values(t.files).forEach((f) => f.shape && (f.shape = 3)),
    "a transaction's records elsewhere": (t) => Object.values(t.explicit).forEach((e) => e.transactions.forEach((r) => (r.ir = 99999))),
  };
  withCopy("nest-shop", (dir, root) => {
  const plain = scan(root).ir;
  const everything = (() => {
    const cache = warm(dir);
    scan(root, { warm: cache.settings });
    return cache.walked();
  })();
  const file = warm(dir).settings.file;
  const good = fs.readFileSync(file, "utf8");
  for (const [name, mutate] of Object.entries(mutations)) {
    for (const edited of [false, true]) {
      const end = good.indexOf("\n");
      const tables = JSON.parse(good.slice(end + 1));
      mutate(tables);
      fs.writeFileSync(file, `${good.slice(0, end)}\n${JSON.stringify(tables)}`);
      const service = path.join(root, "src", "cart", "cart.service.ts");
      const text = fs.readFileSync(service, "utf8");
      if (edited) fs.writeFileSync(service, `${text}\n// edited\n`);
      try {
        const cache = warm(dir);
        let ir;
        const said = stderrOf(() => (ir = scan(root, { warm: cache.settings }).ir));
        assert.equal(ir, edited ? scan(root).ir : plain, name);
        assert.match(said, /cache .* is damaged; it is rebuilt/, name);
        assert.deepEqual(cache.walked(), everything, name);
      } finally {
        fs.writeFileSync(service, text);
      }
    }
  }
  });
});

test("a cache file of an earlier format is out of date, not damaged: rebuilt without a word", () => {
  withCopy("nest-shop", (dir, root) => {
  const cache = warm(dir);
  scan(root, { warm: cache.settings });
  const text = fs.readFileSync(cache.settings.file, "utf8");
  const tables = JSON.parse(text.slice(text.indexOf("\n") + 1));
  // an earlier format: one line of JSON without a header, its version first
  fs.writeFileSync(cache.settings.file, JSON.stringify({ ...tables, version: tables.version - 1 }));
  let ir;
  const said = stderrOf(() => (ir = scan(root, { warm: cache.settings }).ir));
  assert.equal(ir, scan(root).ir);
  assert.equal(said, "");
  assert.ok(cache.walked().length > 0);
  // and the file written again is read by the next scan
  scan(root, { warm: cache.settings });
  assert.deepEqual(cache.walked(), []);
  });
});
