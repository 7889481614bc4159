#!/usr/bin/env node
// txscan TypeScript front end: `node dist/cli.js [--tsconfig FILE] [--max-file-bytes N]
// [--depth N] [--settings JSON] PATH` writes IR version 1 (JSON lines) for the TypeORM
// application at PATH. `--settings` is one JSON object of further settings (src/settings.ts).
// Exit 0 when the scan completed (bad files are diagnostics), 2 for usage errors.
import * as fs from "fs";
import { DEFAULTS, scan } from "./scan";
import { parseSettings, UserCatalog } from "./settings";

const USAGE = "usage: txscan-ts [--tsconfig FILE] [--max-file-bytes N] [--depth N] [--settings JSON] PATH";

function fail(msg: string): never {
  process.stderr.write(`txscan-ts: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function main(argv: string[]): void {
  let tsconfig: string | undefined;
  let maxFileBytes = DEFAULTS.maxFileBytes;
  let depth = DEFAULTS.depth;
  let root: string | undefined;
  let catalog: UserCatalog | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const eq = a.indexOf("=");
      if (eq > 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    const int = (v: string): number => {
      if (!/^\d+$/.test(v)) fail(`${a} needs a non-negative integer, got '${v}'`);
      return Number(v);
    };
    if (a === "-h" || a === "--help") {
      process.stdout.write(USAGE + "\n");
      process.exit(0);
    } else if (a === "--tsconfig" || a.startsWith("--tsconfig=")) tsconfig = value();
    else if (a === "--max-file-bytes" || a.startsWith("--max-file-bytes=")) maxFileBytes = int(value());
    else if (a === "--depth" || a.startsWith("--depth=")) depth = int(value());
    else if (a === "--settings" || a.startsWith("--settings=")) {
      try {
        catalog = parseSettings(value());
      } catch (e) {
        fail((e as Error).message);
      }
    }
    else if (a.startsWith("-") && a !== "-") fail(`unknown option ${a}`);
    else if (root === undefined) root = a;
    else fail(`unexpected argument ${a}`);
  }
  if (root === undefined) fail("missing PATH");
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
    fs.readdirSync(root);
  } catch {
    fail(`cannot read ${root}`);
  }
  if (!stat.isDirectory()) fail(`${root} is not a directory`);
  if (tsconfig !== undefined && !fs.existsSync(tsconfig)) fail(`cannot read tsconfig ${tsconfig}`);
  const result = scan(root, { tsconfig, maxFileBytes, depth, catalog });
  process.stdout.write(result.ir);
}

main(process.argv.slice(2));
