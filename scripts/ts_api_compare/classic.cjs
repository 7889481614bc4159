// TypeScript 5.9 (classic compiler API): node classic.cjs SRC_DIR TYPESCRIPT_MODULE_DIR
const path = require("path");
const writeConfig = require("./_tsconfig.cjs");
const ts = require(path.resolve(process.argv[3]));
const { config, src } = writeConfig(process.argv[2]);
const t0 = performance.now();
const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(parsed.fileNames, parsed.options);
const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && f.fileName.startsWith(src));
const t1 = performance.now();
const checker = program.getTypeChecker();
let calls = 0, resolved = 0;
for (const sf of files) {
  const visit = (n) => {
    if (n.kind === ts.SyntaxKind.CallExpression) {
      calls++;
      checker.getTypeAtLocation(n.expression);
      if (checker.getSymbolAtLocation(n.expression)) resolved++;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
const t2 = performance.now();
console.log(JSON.stringify({ typescript: ts.version, files: files.length, program_s: +((t1 - t0) / 1000).toFixed(2),
  query_s: +((t2 - t1) / 1000).toFixed(2), calls, resolved }));
