// Program setup: which files make up the scanned application, which compiler options apply
// (the app's tsconfig when readable, defaults otherwise), and a CompilerHost that falls back
// to txscan's stubs for ORM modules and to workspace packages for monorepo imports. Every
// problem with a file becomes a diagnostic; nothing here throws for bad input.
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { DiagnosticRecord } from "./ir";
import { stubFor } from "./stubs";
import { builtinModules } from "module";

/** Node's own modules: never "not installed" (their types come from @types/node). */
const NODE_BUILTINS = new Set(builtinModules);

export interface ScanOptions {
  root: string;
  tsconfig?: string;
  maxFileBytes: number;
  depth: number;
}

export interface ProgramSetup {
  program: ts.Program;
  checker: ts.TypeChecker;
  rootDir: string;
  /** Application source files that parsed cleanly and are analysed. */
  files: ts.SourceFile[];
  diagnostics: DiagnosticRecord[];
}

/** Folders never scanned: dependencies, build output, VCS metadata. */
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "build", "out", "coverage", ".next", ".turbo", ".cache"]);
const TS_SOURCE = /\.(ts|tsx|mts|cts)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;
const JS_SOURCE = /\.(js|jsx|mjs|cjs)$/;

export function relPath(rootDir: string, fileName: string): string {
  return path.relative(rootDir, fileName).split(path.sep).join("/");
}

function diag(file: string, line: number, code: string, severity: DiagnosticRecord["severity"], message: string): DiagnosticRecord {
  return { ir: 1, type: "diagnostic", file, line, code, severity, message };
}

/** All files under root, sorted, skipping dependency and output folders and dot-folders. */
function listFiles(rootDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || e.name.startsWith(".")) continue;
        walk(full);
      } else if (e.isFile()) out.push(full);
    }
  };
  walk(rootDir);
  return out;
}

/** Defaults for apps without a usable tsconfig: decorators on, modern target. */
function defaultOptions(): ts.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2021,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    strict: false,
  };
}

/** Options that are forced whatever the app says: we analyse, we never emit. */
function forceOptions(options: ts.CompilerOptions): ts.CompilerOptions {
  return {
    ...options,
    noEmit: true,
    allowJs: false,
    checkJs: false,
    skipLibCheck: true,
    experimentalDecorators: options.experimentalDecorators ?? true,
    // @types of whatever happens to be installed near the scan root would make results
    // depend on the machine; globals txscan needs (fetch, setTimeout) are matched by name.
    types: [],
    noLib: false,
    incremental: false,
    composite: false,
    declaration: false,
    sourceMap: false,
    plugins: undefined,
  };
}

function lineOf(sf: ts.SourceFile, pos: number): number {
  return sf.getLineAndCharacterOfPosition(Math.max(0, Math.min(pos, sf.text.length))).line + 1;
}

function readConfig(rootDir: string, configPath: string, diagnostics: DiagnosticRecord[]): ts.CompilerOptions {
  const rel = relPath(rootDir, configPath);
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) {
    diagnostics.push(diag(rel, 0, "parse-error", "warning",
      `tsconfig could not be read (${ts.flattenDiagnosticMessageText(read.error.messageText, " ")}); using defaults`));
    return defaultOptions();
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath), undefined, configPath);
  // TS18003 "no inputs found" is irrelevant: txscan chooses its own file set.
  const errors = parsed.errors.filter((e) => e.code !== 18003);
  if (errors.length > 0) {
    const msg = errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, " ")).join("; ");
    diagnostics.push(diag(rel, 0, "parse-error", "warning", `tsconfig problems (${msg}); affected options use defaults`));
  }
  return { ...defaultOptions(), ...parsed.options };
}

/** npm/yarn/pnpm workspace packages of a monorepo: package name -> its entry .ts file. */
function workspacePackages(allFiles: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const f of allFiles) {
    if (path.basename(f) !== "package.json") continue;
    let pkg: any;
    try {
      pkg = JSON.parse(fs.readFileSync(f, "utf8"));
    } catch {
      continue;
    }
    if (!pkg || typeof pkg.name !== "string" || map.has(pkg.name)) continue;
    const dir = path.dirname(f);
    const candidates: string[] = [];
    for (const field of [pkg.types, pkg.typings, pkg.main]) {
      if (typeof field !== "string") continue;
      const base = field.replace(/^\.\//, "").replace(/\.(d\.ts|js|ts)$/, "");
      candidates.push(base + ".ts", base.replace(/^(dist|build|lib|out)\//, "src/") + ".ts");
    }
    candidates.push("src/index.ts", "index.ts", "lib/index.ts");
    for (const c of candidates) {
      const full = path.join(dir, c);
      if (fs.existsSync(full)) {
        map.set(pkg.name, full);
        break;
      }
    }
  }
  return map;
}

// Lib and stub source files never change during a process: parse them once and share them
// between programs (the test suite builds many small programs).
const sharedFiles = new Map<string, ts.SourceFile>();

export function setupProgram(opts: ScanOptions): ProgramSetup {
  const rootDir = path.resolve(opts.root);
  const diagnostics: DiagnosticRecord[] = [];
  const allFiles = listFiles(rootDir);

  let configPath = opts.tsconfig ? path.resolve(opts.tsconfig) : path.join(rootDir, "tsconfig.json");
  let options: ts.CompilerOptions;
  if (fs.existsSync(configPath)) options = readConfig(rootDir, configPath, diagnostics);
  else {
    if (opts.tsconfig) {
      diagnostics.push(diag(relPath(rootDir, configPath), 0, "parse-error", "warning", "tsconfig not found; using defaults"));
    }
    options = defaultOptions();
  }
  options = forceOptions(options);

  const roots: string[] = [];
  const oversized = new Set<string>();
  const undecodable = new Set<string>();
  for (const f of allFiles) {
    const rel = relPath(rootDir, f);
    if (JS_SOURCE.test(f)) {
      // JavaScript is not analysed; say so where it could hide transactions.
      let text = "";
      try {
        text = fs.statSync(f).size <= opts.maxFileBytes ? fs.readFileSync(f, "utf8") : "";
      } catch {
        /* unreadable: nothing to report beyond skipping */
      }
      if (/\btypeorm\b|\.transaction\s*\(|startTransaction\s*\(/.test(text)) {
        diagnostics.push(diag(rel, 0, "unknown-orm-pattern", "info", "JavaScript file uses TypeORM but is not analysed (TypeScript only)"));
      }
      continue;
    }
    if (!TS_SOURCE.test(f)) continue;
    let size = 0;
    try {
      size = fs.statSync(f).size;
    } catch {
      continue;
    }
    if (size > opts.maxFileBytes) {
      oversized.add(path.resolve(f));
      diagnostics.push(diag(rel, 0, "too-large", "warning", `file has ${size} bytes, over the limit of ${opts.maxFileBytes}; skipped`));
      continue;
    }
    roots.push(f);
  }

  const workspaces = workspacePackages(allFiles);
  const host = ts.createCompilerHost(options, true);
  const baseGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const resolved = path.resolve(fileName);
    const isShared = fileName.includes("/typescript/lib/lib.") || fileName.includes(path.sep + "stubs" + path.sep) || fileName.includes("/stubs/");
    const key = `${resolved}|${typeof languageVersion === "object" ? languageVersion.languageVersion : languageVersion}`;
    if (isShared && sharedFiles.has(key)) return sharedFiles.get(key);
    if (oversized.has(resolved)) return ts.createSourceFile(fileName, "", languageVersion);
    if (resolved.startsWith(rootDir + path.sep) && !resolved.includes(`${path.sep}node_modules${path.sep}`)) {
      let buf: Buffer;
      try {
        buf = fs.readFileSync(resolved);
      } catch {
        return undefined;
      }
      if (buf.length > opts.maxFileBytes) {
        oversized.add(resolved);
        return ts.createSourceFile(fileName, "", languageVersion);
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
      } catch {
        undecodable.add(resolved);
        return ts.createSourceFile(fileName, "", languageVersion);
      }
      return ts.createSourceFile(fileName, text, languageVersion, true);
    }
    const sf = baseGetSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (sf && isShared) sharedFiles.set(key, sf);
    return sf;
  };

  // Failed resolutions, kept to report unresolved imports afterwards.
  const failed = new Map<string, Set<string>>();
  const moduleCache = ts.createModuleResolutionCache(rootDir, (s) => s, options);
  host.resolveModuleNames = (moduleNames, containingFile, _reused, redirected, compilerOptions) =>
    moduleNames.map((name) => {
      const r = ts.resolveModuleName(name, containingFile, compilerOptions, host, moduleCache, redirected).resolvedModule;
      if (r && !/\.(js|jsx|mjs|cjs)$/.test(r.resolvedFileName)) return r;
      const stub = stubFor(name);
      if (stub) return { resolvedFileName: stub, extension: ts.Extension.Dts, isExternalLibraryImport: true };
      const ws = workspaces.get(name);
      if (ws) return { resolvedFileName: ws, extension: ts.Extension.Ts, isExternalLibraryImport: false };
      if (r) return r;
      if (!failed.has(containingFile)) failed.set(containingFile, new Set());
      failed.get(containingFile)!.add(name);
      return undefined;
    });

  const program = ts.createProgram({ rootNames: roots, options, host });
  const checker = program.getTypeChecker();

  const files: ts.SourceFile[] = [];
  const reportedPackages = new Set<string>();
  for (const f of roots) {
    const sf = program.getSourceFile(f);
    const rel = relPath(rootDir, f);
    if (!sf) continue;
    if (undecodable.has(path.resolve(f))) {
      diagnostics.push(diag(rel, 0, "decode-error", "warning", "file is not valid UTF-8; skipped"));
      continue;
    }
    const syntax = program.getSyntacticDiagnostics(sf);
    if (syntax.length > 0) {
      const first = syntax[0];
      diagnostics.push(diag(rel, lineOf(sf, first.start ?? 0), "parse-error", "error",
        `${ts.flattenDiagnosticMessageText(first.messageText, " ")} (${syntax.length} syntax error(s)); file skipped`));
      continue;
    }
    if (DECLARATION.test(f)) {
      // declarations feed the checker; they hold no code to analyse
      if (/\btypeorm\b/.test(sf.text)) {
        diagnostics.push(diag(rel, 0, "unknown-orm-pattern", "info", "declaration file mentions TypeORM: types only, no code to analyse"));
      }
      continue;
    }
    files.push(sf);
    const misses = failed.get(sf.fileName) ?? failed.get(path.resolve(sf.fileName));
    if (!misses) continue;
    for (const stmt of sf.statements) {
      const spec = (ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt)) && stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier)
        ? stmt.moduleSpecifier.text
        : undefined;
      if (!spec || !misses.has(spec)) continue;
      const line = lineOf(sf, stmt.getStart(sf));
      if (spec.startsWith(".") || spec.startsWith("/")) {
        diagnostics.push(diag(rel, line, "unresolved-import", "warning", `cannot resolve '${spec}'`));
      } else {
        const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
        if (reportedPackages.has(pkg) || NODE_BUILTINS.has(pkg.replace(/^node:/, ""))) continue;
        reportedPackages.add(pkg);
        diagnostics.push(diag(rel, line, "unresolved-import", "info", `package '${pkg}' is not installed; its calls are matched by name`));
      }
    }
  }
  return { program, checker, rootDir, files, diagnostics };
}
