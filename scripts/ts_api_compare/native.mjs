// TypeScript 7 (typescript/unstable/sync, the Go compiler over IPC):
// node native.mjs SRC_DIR TYPESCRIPT7_MODULE_DIR   (BATCH=1: one checker request per file)
import path from "node:path";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const writeConfig = require("./_tsconfig.cjs");
const tsDir = path.resolve(process.argv[3]);
const { API } = await import(path.join(tsDir, "dist/api/sync/api.js"));
const { SyntaxKind } = await import(path.join(tsDir, "dist/ast/index.js"));
const { config, src } = writeConfig(process.argv[2]);
const t0 = performance.now();
const api = new API({ cwd: path.dirname(config) });
const project = api.updateSnapshot({ openProjects: [config] }).getProjects()[0];
const names = project.program.getSourceFileNames().filter((f) => f.startsWith(src) && !f.endsWith(".d.ts"));
const t1 = performance.now();
let calls = 0, resolved = 0;
for (const name of names) {
  const callees = [];
  const visit = (n) => { if (n.kind === SyntaxKind.CallExpression) callees.push(n.expression); n.forEachChild(visit); };
  project.program.getSourceFile(name).forEachChild(visit);
  calls += callees.length;
  if (process.env.BATCH) {
    project.checker.getTypeAtLocation(callees);
    resolved += project.checker.getSymbolAtLocation(callees).filter(Boolean).length;
  } else {
    for (const n of callees) {
      project.checker.getTypeAtLocation(n);
      if (project.checker.getSymbolAtLocation(n)) resolved++;
    }
  }
}
const t2 = performance.now();
api.close();
console.log(JSON.stringify({ typescript: "7 (unstable/sync)", batch: !!process.env.BATCH, files: names.length,
  program_s: +((t1 - t0) / 1000).toFixed(2), query_s: +((t2 - t1) / 1000).toFixed(2), calls, resolved }));
