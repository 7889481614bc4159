// Which module names txscan can stand in for, and where the stand-ins live. A stub is used
// only after normal module resolution failed (the scanned checkout has no node_modules), so an
// application that does have its dependencies installed is checked against the real types.
import * as path from "path";

/** Folder holding the shipped declaration stubs (ts-plugin/stubs, next to dist/). */
export const STUB_ROOT = path.resolve(__dirname, "..", "stubs");

/** Module name (or prefix followed by "/") -> stub file relative to STUB_ROOT. */
const STUB_TABLE: ReadonlyArray<readonly [string, string]> = [
  ["typeorm", "typeorm/index.d.ts"],
  ["@nestjs/typeorm", "@nestjs/typeorm/index.d.ts"],
  ["@nestjs/common", "@nestjs/common/index.d.ts"],
  ["typeorm-transactional", "typeorm-transactional/index.d.ts"],
  ["typeorm-transactional-cls-hooked", "typeorm-transactional/index.d.ts"],
];

/** The stub file for a module specifier (`typeorm`, `typeorm/browser`, ...), if any. */
export function stubFor(moduleName: string): string | undefined {
  for (const [name, file] of STUB_TABLE) {
    if (moduleName === name || moduleName.startsWith(name + "/")) return path.join(STUB_ROOT, file);
  }
  return undefined;
}

export function isStubFile(fileName: string): boolean {
  return path.resolve(fileName).startsWith(STUB_ROOT + path.sep);
}

const packages = new Map<string, string | undefined>();

/** The npm package a declaration file belongs to: stub or node_modules/<pkg>/... */
export function packageOfFile(fileName: string): string | undefined {
  if (packages.has(fileName)) return packages.get(fileName);
  const pkg = filePackage(fileName);
  packages.set(fileName, pkg);
  return pkg;
}

function filePackage(fileName: string): string | undefined {
  const norm = fileName.split(path.sep).join("/");
  if (isStubFile(fileName)) {
    const rel = path.relative(STUB_ROOT, fileName).split(path.sep);
    return rel[0].startsWith("@") ? rel[0] + "/" + rel[1] : rel[0];
  }
  const i = norm.lastIndexOf("/node_modules/");
  if (i < 0) return undefined;
  const parts = norm.slice(i + "/node_modules/".length).split("/");
  if (parts[0] === "@types") return parts[1].includes("__") ? "@" + parts[1].replace("__", "/") : parts[1];
  return parts[0].startsWith("@") ? parts[0] + "/" + parts[1] : parts[0];
}
