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
