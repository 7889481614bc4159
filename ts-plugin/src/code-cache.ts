// V8's code cache for the TypeScript compiler, made once by setup and read by every scan.
//
// node compiles a module's functions to bytecode when they first run. The compiler
// (typescript.js, 9 MB) is loaded by every scan and most of what a scan runs is its checker, so a
// scan spends part of its time compiling the same functions again: about 0.1 s of a small
// project's 1 s, 0.2-0.3 s of vendure's core (interleaved runs). V8 can serialise the bytecode of
// a script's compiled functions (`vm.Script#createCachedData`) and take it back when the same
// script is compiled again (`cachedData`), skipping that work.
//
// scripts/bundle_ts_plugin.py (run by scripts/setup.sh) makes the cache next to this module
// (CACHE_NAME), by scanning the bundled TypeORM samples with make-code-cache.js under the flags a
// scan runs with. Loading this module installs a loader for typescript.js alone: it compiles the
// module as node's own loader does (the same wrapper, `require` and `this`), with the cache when
// the cache was made from this very text and its data are as written (two SHA-1s head the file:
// the text's and the data's; V8 checks the data's length, not their content, and a damaged cache
// would crash node). V8 refuses a cache made by another V8 version or under other flags
// (`cachedDataRejected`) and then compiles as if there were none: what the cache gives is the bytecode compiling gives, so nothing changes but
// time. Without a cache (a checkout that was only built with `npm run build`) the loader is not
// installed. Nothing writes the cache during a scan.
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as vm from "vm";

/** The cache file, next to the compiled modules. */
export const CACHE_NAME = "typescript.code-cache";

/** absent: no cache file (the compiler is loaded by node's own loader); accepted / rejected:
 *  V8's answer for the cache; stale: the cache was made from another typescript.js; damaged:
 *  its data are not those written. */
export type CodeCacheState = "absent" | "accepted" | "rejected" | "stale" | "damaged";

const DIGEST = 40; // a hex SHA-1
const HEADER = 2 * DIGEST; // the SHA-1 of the text the cache was made from, then that of the data

// (not warm-shape.ts digest(): that module loads the compiler, which must come through the loader)
function sha1(data: string | Buffer): string {
  return createHash("sha1").update(data).digest("hex");
}

interface Compiled {
  script: vm.Script;
  digest: string;
}

let state: CodeCacheState = "absent";
let compiled: Compiled | undefined;

/** What happened to the cache in this process (absent until typescript.js is loaded). */
export function codeCacheState(): CodeCacheState {
  return state;
}

// (newer node versions pass more arguments: handed on as they are)
type Compile = (this: NodeModule, content: string, filename: string, ...rest: unknown[]) => unknown;

/** Install the loader for typescript.js when the cache `file` exists (`always`: in any case,
 *  to make one); whether it was installed. */
export function installCodeCache(file: string = path.join(__dirname, CACHE_NAME), always = false): boolean {
  if (!always && !fs.existsSync(file)) return false;
  const Module = require("module") as { prototype: { _compile: Compile }; wrap(text: string): string; createRequire(file: string): NodeRequire };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (this: NodeModule, content: string, filename: string, ...rest: unknown[]) {
    if (compiled || path.basename(filename) !== "typescript.js" || path.basename(path.dirname(path.dirname(filename))) !== "typescript") {
      return compile.call(this, content, filename, ...rest);
    }
    const digest = sha1(content);
    const cachedData = cacheFor(file, digest);
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    state = cachedData === undefined ? state : script.cachedDataRejected ? "rejected" : "accepted";
    compiled = { script, digest };
    const run = script.runInThisContext() as (...args: unknown[]) => unknown;
    return run.call(this.exports, this.exports, Module.createRequire(filename), this, filename, path.dirname(filename));
  };
  return true;
}

/** The cache's data when it was made from the text of this digest. */
function cacheFor(file: string, digest: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch {
    state = "absent";
    return undefined;
  }
  if (data.length <= HEADER || data.subarray(0, DIGEST).toString("latin1") !== digest) {
    state = "stale";
    return undefined;
  }
  const cached = data.subarray(HEADER);
  if (data.subarray(DIGEST, HEADER).toString("latin1") !== sha1(cached)) {
    state = "damaged";
    return undefined;
  }
  return cached;
}

/** Write the cache of the compiler as this process compiled it so far (make-code-cache.ts);
 *  false when the compiler was not loaded through the loader. */
export function writeCodeCache(file: string): boolean {
  if (!compiled) return false;
  const data = compiled.script.createCachedData();
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, Buffer.concat([Buffer.from(compiled.digest + sha1(data), "latin1"), data]));
  fs.renameSync(temporary, file);
  return true;
}
