// `--serve FD` (src/serve-edits.ts): after its IR, the scan's process answers re-analyses of
// edited files, as a scan of an edited copy with the same settings would.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");
const { REPO } = require("./helpers");
const { scan } = require("../dist/scan");

const CLI = path.join(__dirname, "..", "dist", "cli.js");
const SAMPLE = path.join(REPO, "corpus", "samples", "typeorm", "nest-shop");
const EDITED = "src/orders/orders.service.ts";
const OTHER = "src/catalog/catalog.service.ts";

/** The cli with --serve 3 (fd 3 a pipe), the requests on its stdin: status, stdout and the answers. */
function serve(root, requests, settings = {}) {
  const r = spawnSync(process.execPath, ["--expose-gc", CLI, "--settings", JSON.stringify(settings), "--serve", "3", root], {
    input: requests.join(""), stdio: ["pipe", "pipe", "pipe", "pipe"], maxBuffer: 1 << 28,
  });
  return { status: r.status, stderr: r.stderr.toString(), stdout: r.stdout.toString(), answers: answersOf(r.output[3]) };
}

/** The answers written on the serving descriptor: {text} or {error} each. */
function answersOf(bytes) {
  const out = [];
  for (let at = 0; at < bytes.length; ) {
    const end = bytes.indexOf(10, at);
    const header = JSON.parse(bytes.subarray(at, end).toString("utf8"));
    if (header.error !== undefined) {
      out.push({ error: header.error });
      at = end + 1;
      continue;
    }
    out.push({ text: bytes.subarray(end + 1, end + 1 + header.bytes).toString("utf8") });
    at = end + 1 + header.bytes;
  }
  return out;
}

const request = (texts, walkFiles) => JSON.stringify({ texts, walkFiles }) + "\n";
/** IR without its meta line (which names the root scanned). */
const body = (ir) => ir.slice(ir.indexOf("\n") + 1);

/** A copy of the sample with `texts` written over its files. */
function editedCopy(texts) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-serve-"));
  fs.cpSync(SAMPLE, dir, { recursive: true });
  for (const [rel, text] of Object.entries(texts)) fs.writeFileSync(path.join(dir, rel), text);
  return dir;
}

test("answers each request with the IR a scan of an edited copy gives, then ends with its input", () => {
  const original = fs.readFileSync(path.join(SAMPLE, EDITED), "utf8");
  // a statement added to the first transaction's callback, and the file's line numbers moved by a
  // comment longer than one read of stdin (64 KB)
  const comment = "// edited " + "x".repeat(150_000) + "\n";
  const edited = comment + original.replace("async (manager) => {", "async (manager) => {\n      await manager.query(\"select 1\");");
  assert.notEqual(edited.slice(comment.length), original, "the sample still has the callback the edit looks for");
  const served = serve(SAMPLE, [
    request({ [EDITED]: edited }, [EDITED]),
    request({}, [OTHER]),
    request({ [EDITED]: original }, [EDITED, OTHER]),
  ]);
  assert.equal(served.status, 0, served.stderr);
  assert.equal(served.stdout, scan(SAMPLE).ir, "the scan's own IR first, as without --serve");
  assert.equal(served.answers.length, 3);
  const copy = editedCopy({ [EDITED]: edited });
  try {
    const expected = scan(copy, { autocommit: false, walkFiles: [EDITED] }).ir;
    assert.equal(body(served.answers[0].text), body(expected));
    assert.match(body(expected), /select 1/, "the edit is in the answer");
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
  assert.equal(served.answers[1].text, scan(SAMPLE, { autocommit: false, walkFiles: [OTHER] }).ir);
  assert.equal(served.answers[2].text, scan(SAMPLE, { autocommit: false, walkFiles: [EDITED, OTHER] }).ir);
  // the compiler reuses the unchanged files' module resolutions: their unresolved imports are still reported
  const unresolved = served.answers[1].text.split("\n").filter((line) => line.includes('"unresolved-import"'));
  assert.ok(unresolved.some((line) => !line.includes(OTHER)), "the sample has unresolved imports in other files");
});

test("a bad request gets an error answer and the process goes on serving", () => {
  const served = serve(SAMPLE, [
    "not json\n",
    request({ "../outside.ts": "export const x = 1;" }, []),
    JSON.stringify({ texts: { [EDITED]: 1 }, walkFiles: [] }) + "\n",
    request({}, [OTHER]),
  ]);
  assert.equal(served.status, 0, served.stderr);
  assert.equal(served.answers.length, 4);
  assert.ok(served.answers[0].error);
  assert.match(served.answers[1].error, /not a path under the scanned root/);
  assert.match(served.answers[2].error, /texts map paths to texts/);
  assert.equal(served.answers[3].text, scan(SAMPLE, { autocommit: false, walkFiles: [OTHER] }).ir);
});

test("the user's settings hold in the re-analysis too", () => {
  const settings = { depth: 1, exclude: ["reports"] };
  const served = serve(SAMPLE, [request({}, [EDITED])], settings);
  assert.equal(served.status, 0, served.stderr);
  assert.equal(served.answers[0].text, scan(SAMPLE, { ...settings, autocommit: false, walkFiles: [EDITED] }).ir);
});

test("a question of syntax facts gets rewrite-check.js's answer", () => {
  const text = fs.readFileSync(path.join(SAMPLE, EDITED), "utf8");
  const question = { files: [{ path: EDITED, text, line: 31 }, { path: "broken.ts", text: "const x = ;" }] };
  const served = serve(SAMPLE, [JSON.stringify(question) + "\n", JSON.stringify({ files: [{ path: 1 }] }) + "\n"]);
  assert.equal(served.status, 0, served.stderr);
  const checked = spawnSync(process.execPath, ["--expose-gc", path.join(__dirname, "..", "dist", "rewrite-check.js")], { input: JSON.stringify(question), encoding: "utf8" });
  assert.equal(checked.status, 0, checked.stderr);
  assert.equal(served.answers[0].text + "\n", checked.stdout);
  const [facts, broken] = JSON.parse(checked.stdout).files;
  assert.ok(facts.calls.length > 0 && facts.statements.length > 0, "the line holds the sample's transaction call");
  assert.ok(broken.errors.length > 0);
  assert.match(served.answers[1].error, /files are \{path, text, line\?\} objects/);
});
