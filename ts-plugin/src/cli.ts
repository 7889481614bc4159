#!/usr/bin/env node
// txscan TypeScript front end: `node dist/cli.js [--settings JSON] [--tsconfig FILE]
// [--max-file-bytes N] [--depth N] PATH` writes IR version 1 (JSON lines) for the TypeORM
// application at PATH. Exit 0 when the scan completed (bad files are diagnostics), 2 for usage
// errors, 3 for an internal error (one line on stderr, never a stack trace unless
// TXSCAN_DEBUG is set).
import "./with-code-cache"; // (first: before the compiler is loaded)
import * as fs from "fs";
import * as os from "os";
import { DEFAULTS, scanBeforeCacheSave } from "./scan";
import { ScanOptions } from "./program";
import { catalogOf, UserCatalog } from "./settings";
import { writeAllAndClose } from "./print-ir";
import { serveEdits } from "./serve-edits";

const USAGE = "usage: txscan-ts [--settings JSON] [--tsconfig FILE] [--max-file-bytes N] [--depth N] [--cache FILE --cache-key KEY [--cache-report FILE]] [--serve FD] PATH";
const INTERNAL_ERROR = 3;

function fail(msg: string): never {
  process.stderr.write(`txscan-ts: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

type Settings = Partial<Omit<ScanOptions, "root" | "tsconfig">>;

/**
 * `--settings` is one JSON object carrying [tool.txscan] to this side: `exclude` (list of
 * names), `maxFileBytes`, `depth`, and the user's extra `effects` and `statements`
 * (src/settings.ts). Keys this version does not know are ignored, so the Python
 * side can add settings (e.g. extra callees) without breaking an older build.
 */
function parseSettings(text: string): Settings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail("--settings needs a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("--settings needs a JSON object");
  const raw = value as Record<string, unknown>;
  const out: Settings = {};
  const count = (key: "maxFileBytes" | "depth") => {
    const v = raw[key];
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) fail(`--settings ${key} must be a whole number of 1 or more`);
    out[key] = v;
  };
  count("maxFileBytes");
  count("depth");
  if (raw.exclude !== undefined) {
    if (!Array.isArray(raw.exclude) || !raw.exclude.every((x) => typeof x === "string")) fail("--settings exclude must be a list of names");
    out.exclude = raw.exclude as string[];
  }
  if (raw.walkFiles !== undefined && (!Array.isArray(raw.walkFiles) || !raw.walkFiles.every((x) => typeof x === "string"))) {
    fail("--settings walkFiles must be a list of paths");
  }
  for (const [key, v] of Object.entries(raw)) {
    if (!(key in out) && v !== undefined && !["maxFileBytes", "depth", "exclude"].includes(key)) (out as Record<string, unknown>)[key] = v;
  }
  return out;
}

function main(argv: string[]): void {
  let tsconfig: string | undefined;
  let settings: Settings = {};
  let maxFileBytes: number | undefined;
  let depth: number | undefined;
  let root: string | undefined;
  const cache: { file?: string; key?: string; report?: string } = {};
  let serve: number | undefined;
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
    else if (a === "--settings" || a.startsWith("--settings=")) settings = parseSettings(value());
    else if (a === "--max-file-bytes" || a.startsWith("--max-file-bytes=")) maxFileBytes = int(value());
    else if (a === "--depth" || a.startsWith("--depth=")) depth = int(value());
    else if (a === "--cache" || a.startsWith("--cache=")) cache.file = value();
    else if (a === "--cache-key" || a.startsWith("--cache-key=")) cache.key = value();
    else if (a === "--cache-report" || a.startsWith("--cache-report=")) cache.report = value();
    else if (a === "--serve" || a.startsWith("--serve=")) serve = int(value());
    else if (a.startsWith("-") && a !== "-") fail(`unknown option ${a}`);
    else if (root === undefined) root = a;
    else fail(`unexpected argument ${a}`);
  }
  if (root === undefined) fail("missing PATH");
  if ((cache.file === undefined) !== (cache.key === undefined)) fail("--cache and --cache-key go together");
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
    fs.readdirSync(root);
  } catch {
    fail(`cannot read ${root}`);
  }
  if (!stat.isDirectory()) fail(`${root} is not a directory`);
  if (tsconfig !== undefined && !fs.existsSync(tsconfig)) fail(`cannot read tsconfig ${tsconfig}`);
  let catalog: UserCatalog;
  try {
    catalog = catalogOf(settings as Record<string, unknown>);
  } catch (e) {
    fail((e as Error).message);
  }
  const { effects: _effects, statements: _statements, ...rest } = settings as Record<string, unknown>;
  const options = {
    ...(rest as Settings),
    catalog,
    tsconfig,
    maxFileBytes: maxFileBytes ?? settings.maxFileBytes ?? DEFAULTS.maxFileBytes,
    depth: depth ?? settings.depth ?? DEFAULTS.depth,
  };
  const finalDepth = options.depth;
  const warm = cache.file !== undefined ? { file: cache.file, key: cache.key!, report: cache.report, partial: finalDepth === Number.POSITIVE_INFINITY,
    output: (options as { autocommit?: boolean }).autocommit === false ? "explicit" as const : "all" as const } : undefined;
  const { result, saveCache, program } = scanBeforeCacheSave(root, { ...options, warm, keepProgram: serve !== undefined });
  // The IR on stdout, and stdout closed: the caller has all of it (end of file) and goes on with
  // it while the warm cache file is written (vendure's core: 27 MB, about 0.2 s). Written with
  // fs.writeSync: process.stdout, which may write a pipe asynchronously, is never made (nothing
  // is printed after this; the descriptor's number may then be reused by the cache's file).
  writeAllAndClose(1, result.ir);
  // Serving reads folders after this, and libuv refuses to close a descriptor numbered 0-2
  // (it aborts): the closed stdout's number is taken by /dev/null, so that no file gets it.
  if (serve !== undefined) fs.openSync(os.devNull, "r");
  saveCache();
  // `--serve FD`: re-analyses of edited files (a rewrite's verification), asked on stdin and
  // answered on FD, until stdin ends (src/serve-edits.ts)
  if (serve !== undefined) serveEdits(root, options, serve, program);
}

try {
  main(process.argv.slice(2));
} catch (e) {
  if (process.env.TXSCAN_DEBUG) process.stderr.write(`${(e as Error)?.stack ?? e}\n`);
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  process.stderr.write(`txscan-ts: internal error: ${message.split("\n")[0]}\n`);
  process.exit(INTERNAL_ERROR);
}
