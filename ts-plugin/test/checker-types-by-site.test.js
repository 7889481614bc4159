// scripts/checker-types-by-site.js, the preload that counts the checker types ts-plugin's
// questions make: on a sample it reports the program's type count and the sites that made
// them, their counts adding up to no more than the total, and leaves the IR as it was.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const { spawnSync } = require("child_process");
const { sampleApps } = require("./helpers");

const CLI = path.join(__dirname, "..", "dist", "cli.js");
const PRELOAD = path.join(__dirname, "..", "scripts", "checker-types-by-site.js");

test("the preload counts types per asking site and changes no IR", () => {
  const app = sampleApps()[0].dir;
  const plain = spawnSync(process.execPath, [CLI, app], { encoding: "utf8" });
  const counted = spawnSync(process.execPath, ["-r", PRELOAD, CLI, app], { encoding: "utf8", env: { ...process.env, SITE_FRAMES: "1" } });
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(counted.status, 0, counted.stderr);
  assert.equal(counted.stdout, plain.stdout);
  const [head, ...sites] = counted.stderr.trimEnd().split("\n");
  const total = Number(/^types (\d+)$/.exec(head)?.[1]);
  assert.ok(total > 0, head);
  assert.ok(sites.length > 0, "no site reported");
  let sum = 0;
  for (const line of sites) {
    const m = /^(\d+)\t(get\w+) @ (.+)$/.exec(line);
    assert.ok(m, line);
    assert.doesNotMatch(m[3], /checker-memo|checker-types-by-site/);
    sum += Number(m[1]);
  }
  assert.ok(sum <= total, `${sum} > ${total}`);
});
