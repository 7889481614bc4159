// src/print-ir.ts: the IR written in pieces is the text, whatever character a piece ends at.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { writeAllAndClose } = require("../dist/print-ir");

test("pieces never split a surrogate pair; the text is written whole and the descriptor closed", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-print-"));
  try {
    const text = '{"file":"a\u{1F600}b\u00e9\u{10FFFF}c"}\n'.repeat(50) + "\u{1F600}";
    for (const chunk of [1, 2, 3, 5, 7, 1 << 20]) {
      const file = path.join(dir, `out-${chunk}`);
      const fd = fs.openSync(file, "w");
      writeAllAndClose(fd, text, chunk);
      assert.throws(() => fs.fstatSync(fd), /EBADF/);
      assert.equal(fs.readFileSync(file, "utf8"), text, `pieces of ${chunk}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// src/scan.ts, src/cli.ts: the IR's first lines (meta, entities, explicit transactions) are
// printed before the autocommit walks; the output is the same bytes as the whole IR at once.
const { renderIr, renderIrHead, renderIrTail } = require("../dist/ir");
const { scanBeforeCacheSave } = require("../dist/scan");
const { execFileSync } = require("child_process");
const SAMPLES = path.join(__dirname, "..", "..", "corpus", "samples", "typeorm");

test("the head printed before the autocommit walks is the IR's beginning, and holds every explicit transaction", () => {
  for (const name of fs.readdirSync(SAMPLES).filter((n) => fs.statSync(path.join(SAMPLES, n)).isDirectory()).sort()) {
    const root = path.join(SAMPLES, name);
    const heads = [];
    const { result } = scanBeforeCacheSave(root, {}, (head) => heads.push(head));
    assert.equal(heads.length, 1, name);
    const [head] = heads;
    assert.ok(result.ir.startsWith(head), `${name}: the IR begins with the head`);
    const headTxs = head.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === "transaction");
    const explicit = result.transactions.filter((t) => t.boundary !== "autocommit");
    assert.equal(headTxs.length, explicit.length, name);
    assert.ok(headTxs.every((t) => t.boundary !== "autocommit"), name);
    const rest = result.ir.slice(head.length).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(rest.every((r) => r.type === "diagnostic" || r.boundary === "autocommit"), `${name}: nothing explicit after the head`);
    // the command line prints the same bytes as the scan's whole IR
    const printed = execFileSync(process.execPath, [path.join(__dirname, "..", "dist", "cli.js"), root], { maxBuffer: 1 << 28 }).toString("utf8");
    assert.equal(printed, result.ir, name);
  }
});

test("the head and the tail are the whole IR, in renderIr's order", () => {
  const meta = { ir: 1, type: "meta", frontend: "typeorm", root: "r" };
  const tx = (file, line, boundary) => ({ ir: 1, type: "transaction", id: `${file}:${line}`, file, line, function: "f", boundary, steps: [] });
  const txs = [tx("b.ts", 1, "autocommit"), tx("b.ts", 2, "callback"), tx("a.ts", 9, "autocommit"), tx("a.ts", 3, "decorator")];
  const diags = [{ ir: 1, type: "diagnostic", file: "a.ts", line: 1, code: "x", severity: "info", message: "m" }];
  const entities = [{ ir: 1, type: "entity", name: "B", file: "b.ts", line: 1 }, { ir: 1, type: "entity", name: "A", file: "a.ts", line: 1 }];
  const explicit = txs.filter((t) => t.boundary !== "autocommit");
  const auto = txs.filter((t) => t.boundary === "autocommit");
  assert.equal(renderIrHead(meta, entities, explicit) + renderIrTail(auto, [...diags, ...diags]), renderIr(meta, entities, txs, diags));
  assert.throws(() => renderIrHead(meta, entities, txs), /autocommit transaction among the explicit/);
  assert.throws(() => renderIrTail(txs, diags), /explicit transaction among the autocommit/);
});
