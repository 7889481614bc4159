// The compiler options ts-plugin uses (program.ts), for a folder of sources: written to a
// temporary tsconfig.json so both compilers read the same project.
const fs = require("fs"), os = require("os"), path = require("path");
module.exports = function writeConfig(srcDir) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-tsapi-"));
  const src = path.resolve(srcDir);
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { target: "es2021", module: "commonjs", experimentalDecorators: true, emitDecoratorMetadata: true,
      strict: false, skipLibCheck: true, noEmit: true, types: [], rootDir: src },
    include: [src + "/**/*.ts"], exclude: [src + "/**/*.spec.ts", src + "/**/*.test.ts"],
  }));
  return { config: path.join(dir, "tsconfig.json"), src };
};
