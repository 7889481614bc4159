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

function copy(sample) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-warm-"));
  fs.cpSync(path.join(SAMPLES, sample), path.join(dir, sample), { recursive: true });
  return { dir, root: path.join(dir, sample) };
}

function warm(dir, output = "all") {
  const report = path.join(dir, "report.json");
  return { settings: { file: path.join(dir, "cache.json"), key: "test", report, partial: true, output }, walked: () => JSON.parse(fs.readFileSync(report, "utf8")).walked };
}

for (const { name: sample } of sampleApps()) {
  test(`sample ${sample}: warm scans give the IR of a scan without a cache`, () => {
    const { dir, root } = copy(sample);
    try {
      const cache = warm(dir);
      const plain = scan(root).ir;
      assert.equal(scan(root, { warm: cache.settings }).ir, plain);
      assert.ok(cache.walked().length > 0);
      assert.equal(scan(root, { warm: cache.settings }).ir, plain);
      assert.deepEqual(cache.walked(), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("a scan reused whole names the root it was given", () => {
  const { dir, root } = copy("nest-shop");
  try {
    const cache = warm(dir);
    scan(root, { warm: cache.settings });
    const other = path.join(dir, "moved");
    fs.renameSync(root, other);
    const ir = scan(other, { warm: cache.settings }).ir;
    assert.equal(JSON.parse(ir.split("\n")[0]).root, other);
    assert.equal(ir, scan(other).ir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the IR is ready before the cache file is written; the report of what was walked before both", () => {
  // the command line prints the IR, then writes the cache file (src/cli.ts): the Python side
  // reads the IR while the file is written
  const { dir, root } = copy("nest-shop");
  try {
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
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
