// Imported first by the command line (cli.ts) and the rewrite check (rewrite-check.ts): the code
// cache's loader (code-cache.ts) is installed before any module loads the TypeScript compiler.
import { installCodeCache } from "./code-cache";

installCodeCache();
