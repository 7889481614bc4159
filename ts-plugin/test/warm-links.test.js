// The `new`s that put a class below an application type, kept by the warm cache
// (src/warm-links.ts): a warm scan asks the checker only about those that linked in unchanged
// files and about every `new` of a changed file, and gives the IR of a scan without a cache,
// also when an edited function body adds a link or a link's file changes.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { scan } = require("../dist/scan");
const { digest } = require("../dist/warm-shape");
const { makeApp, ENTITIES } = require("./helpers");

const CLI = path.join(__dirname, "..", "dist", "cli.js");

const APP = {
  "src/entities.ts": ENTITIES,
  "src/strategy.ts": `import { EntityManager } from "typeorm";
export interface PriceStrategy { price(em: EntityManager, id: number): Promise<number>; }
`,
  // no \`implements\`: only the configuration below puts it in the interface's place
  "src/default-strategy.ts": `import { EntityManager } from "typeorm";
import { Account } from "./entities";
export class DefaultPriceStrategy {
  async price(em: EntityManager, id: number): Promise<number> { const a = await em.findOneBy(Account, { id }); return a ? a.balance : 0; }
}
export class Unrelated { size(): number { return 1; } }
`,
  "src/config.ts": `import { PriceStrategy } from "./strategy";
import { DefaultPriceStrategy, Unrelated } from "./default-strategy";
export const config: { strategy: PriceStrategy } = { strategy: new DefaultPriceStrategy() };
export const sizes = [new Unrelated(), new Unrelated()];
`,
  "src/helper.ts": `import { EntityManager } from "typeorm";
import { User } from "./entities";
import { Unrelated } from "./default-strategy";
export class Helper {
  async touch(em: EntityManager, id: number): Promise<number> {
    const n = new Unrelated();
    await em.update(User, { id }, { name: "x" });
    return n.size();
  }
}
`,
  "src/service.ts": `import { DataSource } from "typeorm";
import { config } from "./config";
import { Helper } from "./helper";
export class PriceService {
  constructor(private ds: DataSource, private helper: Helper) {}
  async reprice(id: number) {
    await this.ds.transaction(async (em) => {
      await config.strategy.price(em, id);
      await this.helper.touch(em, id);
    });
  }
}
`,
};

/** A warm scan as the command line runs it: one process per scan (a process parses the
 *  library files once, and a second scan in it would read none of them). */
function warmScan(root, dir) {
  const report = path.join(dir, "report.json");
  const ir = execFileSync(process.execPath, [CLI, "--cache", path.join(dir, "cache.json"), "--cache-key", "test", "--cache-report", report, root], { encoding: "utf8" });
  return { ir, ...JSON.parse(fs.readFileSync(report, "utf8")) };
}

function edit(root, rel, from, to) {
  const file = path.join(root, rel);
  const text = fs.readFileSync(file, "utf8");
  assert.ok(text.includes(from), from);
  fs.writeFileSync(file, text.replace(from, to));
}

test("a warm scan asks about the kept links and a changed file's news, and gives the IR of a scan without a cache", () => {
  const root = makeApp(APP);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-links-"));
  try {
    const cold = warmScan(root, dir);
    assert.equal(cold.ir, scan(root).ir);
    // every new is asked about: the configuration's three and the helper's
    assert.equal(cold.newsAsked, 4);
    // the strategy is walked through the link the configuration makes
    assert.match(cold.ir, /src\.default-strategy\.DefaultPriceStrategy\.price/);

    // an edit inside the helper's body (a unit): the helper's new is asked about again, and of
    // the configuration's only the one that linked
    edit(root, "src/helper.ts", `name: "x"`, `name: "y"`);
    const helperEdit = warmScan(root, dir);
    assert.equal(helperEdit.ir, scan(root).ir);
    assert.equal(helperEdit.newsAsked, 2);
    assert.match(helperEdit.ir, /src\.default-strategy\.DefaultPriceStrategy\.price/);

    // the edited body puts another class in the interface's place: the link is found
    edit(root, "src/helper.ts", "    const n = new Unrelated();\n", `    const n = new Unrelated();
    const s: PriceStrategy = new Audited();
`);
    edit(root, "src/helper.ts", `import { Unrelated } from "./default-strategy";`, `import { Unrelated } from "./default-strategy";
import { PriceStrategy } from "./strategy";
export class Audited { async price(em: EntityManager, id: number): Promise<number> { await em.delete(User, { id }); return 0; } }`);
    const added = warmScan(root, dir);
    const plain = scan(root).ir;
    assert.equal(added.ir, plain);
    assert.match(plain, /src\.helper\.Audited\.price/);

    // an unchanged scan asks about the links kept and nothing else
    const again = warmScan(root, dir);
    assert.equal(again.ir, plain);
    assert.deepEqual(again.walked, []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Change the cache file's tables as if ts-plugin had written them (the header's digest made
 *  again), so that the shape check, not the digest, is what sees the change. */
function rewriteTables(file, change) {
  const text = fs.readFileSync(file, "utf8");
  const end = text.indexOf("\n");
  const header = JSON.parse(text.slice(0, end));
  const tables = JSON.parse(text.slice(end + 1));
  change(tables);
  const body = JSON.stringify(tables);
  fs.writeFileSync(file, `${JSON.stringify({ ...header, body: digest(body) })}\n${body}`);
}

test("kept links of the wrong shape make the cache damaged: rebuilt, with the IR of a scan without a cache", () => {
  const root = makeApp(APP);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-links-"));
  try {
    warmScan(root, dir);
    const file = path.join(dir, "cache.json");
    for (const links of [{ "src/helper.ts": 5 }, { "src/config.ts": ["1"] }, [], null]) {
      rewriteTables(file, (tables) => {
        tables.links = links;
      });
      edit(root, "src/helper.ts", `name: "`, `name: "z`);  // a body edit: the program is built
      const rebuilt = warmScan(root, dir);
      assert.equal(rebuilt.ir, scan(root).ir);
      assert.equal(rebuilt.newsAsked, 4);  // nothing kept: every new asked about
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
