// The command-line contract used by the Python side: output, exit codes, options.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { REPO, makeApp, ENTITIES } = require("./helpers");
const { scan } = require("../dist/scan");

const CLI = path.join(__dirname, "..", "dist", "cli.js");
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
const SAMPLE = path.join(REPO, "corpus", "samples", "typeorm", "express-ledger");

test("scans a folder: IR on stdout, exit 0, byte-identical across runs", () => {
  const a = run(SAMPLE);
  const b = run(SAMPLE);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  assert.equal(a.stdout, scan(SAMPLE).ir);
  const first = JSON.parse(a.stdout.split("\n")[0]);
  assert.deepEqual(first, { frontend: "typeorm", ir: 1, root: SAMPLE, type: "meta" });
});

test("usage errors exit 2 with a message on stderr", () => {
  for (const args of [[], ["/no/such/dir"], [path.join(SAMPLE, "package.json")], ["--bogus", SAMPLE], ["--depth", "x", SAMPLE], ["--depth"], [SAMPLE, SAMPLE]]) {
    const r = run(...args);
    assert.equal(r.status, 2, JSON.stringify(args));
    assert.ok(r.stderr.length > 0);
    assert.equal(r.stdout, "");
  }
});

test("options: --max-file-bytes, --depth, --tsconfig", () => {
  const dir = makeApp({
    "src/entities.ts": ENTITIES,
    "src/service.ts": `import { DataSource, EntityManager } from "typeorm";
import { User } from "./entities";
async function helper(m: EntityManager, id: number) { await m.delete(User, id); }
export async function run(ds: DataSource, id: number) { await ds.transaction(async (em) => { await helper(em, id); }); }`,
    "config/tsconfig.app.json": JSON.stringify({ compilerOptions: { experimentalDecorators: true } }),
  });
  try {
    const small = run("--max-file-bytes", "100", dir);
    assert.equal(small.status, 0);
    assert.match(small.stdout, /"code":"too-large"/);
    const shallow = run("--depth=0", dir);
    assert.match(shallow.stdout, /"reason":"depth-limit"/);
    const cfg = run("--tsconfig", path.join(dir, "config", "tsconfig.app.json"), dir);
    assert.equal(cfg.status, 0);
    assert.match(cfg.stdout, /"api":"delete"/);
    assert.equal(run("--tsconfig", path.join(dir, "nope.json"), dir).status, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
