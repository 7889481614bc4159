// `node --expose-gc dist/make-code-cache.js [--out FILE] ROOT...`: scans each TypeORM project
// ROOT in this process, then writes the compiler's code cache (code-cache.ts): to FILE, by
// default next to this module, where scans read it. Run by scripts/bundle_ts_plugin.py on the
// bundled samples, under the flags a scan runs with (V8 refuses a cache made under other flags).
// Exit 0 when written, 1 otherwise (scans then run without one).
import * as path from "path";
import { CACHE_NAME, installCodeCache, writeCodeCache } from "./code-cache";

function main(argv: string[]): number {
  let out = path.join(__dirname, CACHE_NAME);
  if (argv[0] === "--out") {
    out = argv[1];
    argv = argv.slice(2);
  }
  installCodeCache(out, true);
  // loaded once the loader is installed (an import would be loaded before it)
  const { scan } = require("./scan") as typeof import("./scan");
  for (const root of argv) scan(root);
  return writeCodeCache(out) ? 0 : 1;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`make-code-cache: ${(e as Error).message.split("\n")[0]}\n`);
  process.exitCode = 1;
}
