// Program setup: which files make up the scanned application, which compiler options apply
// (the app's tsconfig when readable, defaults otherwise), and a CompilerHost that falls back
// to txscan's stubs for ORM modules and to workspace packages for monorepo imports. Every
// problem with a file becomes a diagnostic; nothing here throws for bad input.
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { DiagnosticRecord } from "./ir";
import { stubFor } from "./stubs";
import { memoizedChecker } from "./checker-memo";
import { builtinModules } from "module";
import { blankedMigration } from "./migration-bodies";
import { MetadataDecorators } from "./metadata-decorators";
import { rememberProbes } from "./probe-memo";
import { fileRule, folderRule, isCompiledLib, isMigrationSource, ScopeCounter, UNCOUNTED_FOLDERS } from "./scope";

/** Node's own modules: never "not installed" (their types come from @types/node). */
const NODE_BUILTINS = new Set(builtinModules);

export interface ScanOptions {
  root: string;
  tsconfig?: string;
  maxFileBytes: number;
  depth: number;
  /** Folder or file names (`*`/`?` patterns) never scanned, besides the default scope (scope.ts): `exclude` of [tool.txscan]. */
  exclude?: string[];
  /** A rewrite's re-analysis (scan.ts scanEdited): files read with other texts, and an earlier program's trees. */
  overlay?: Overlay;
}

/** What a re-analysis of edited files changes in the setup: each file of `texts` (absolute
 *  path -> text) reads as that text instead of what is on disk (as if the edits had been
 *  written there), and the source files of `previous` are taken as that program parsed and
 *  bound them, where their text is the one this setup would parse (the application's own
 *  files) or where they come from outside the application (declarations of installed packages,
 *  read once per process as the libraries are: sharedFiles). The program is then built from the
 *  changed files alone: a fresh setup of ever-traduora's 194 files takes about 350 ms, one
 *  reusing all but one about 30 ms. */
export interface Overlay {
  texts: ReadonlyMap<string, string>;
  previous?: KeptProgram;
}

/** A scan's program kept for re-analyses (Overlay), with the imports it could not resolve by
 *  importing file: the compiler reuses an unchanged file's resolutions without asking the host,
 *  so those are not found again. */
export interface KeptProgram {
  program: ts.Program;
  unresolved: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface ProgramSetup {
  program: ts.Program;
  checker: ts.TypeChecker;
  rootDir: string;
  /** Application source files that parsed cleanly and are analysed. */
  files: ts.SourceFile[];
  diagnostics: DiagnosticRecord[];
  /** source files skipped by the default scope (scope.ts) */
  scope: ScopeCounter;
  /** imports that could not be resolved, by importing file (KeptProgram) */
  unresolved: ReadonlyMap<string, ReadonlySet<string>>;
}

const TS_SOURCE = /\.(ts|tsx|mts|cts)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;
const JS_SOURCE = /\.(js|jsx|mjs|cjs)$/;

export function relPath(rootDir: string, fileName: string): string {
  return path.relative(rootDir, fileName).split(path.sep).join("/");
}

function diag(file: string, line: number, code: string, severity: DiagnosticRecord["severity"], message: string): DiagnosticRecord {
  return { ir: 1, type: "diagnostic", file, line, code, severity, message };
}

/** A `*`/`?` pattern of [tool.txscan] exclude as a regular expression over one name. */
function namePattern(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** A file or folder name as text: bytes that are not UTF-8 are shown as `\xNN` (as the Python side does). */
function displayName(raw: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    let out = "";
    for (let i = 0; i < raw.length; ) {
      let taken = 0;
      for (let n = Math.min(4, raw.length - i); n >= 1 && taken === 0; n--) {
        try {
          out += new TextDecoder("utf-8", { fatal: true }).decode(raw.subarray(i, i + n));
          taken = n;
        } catch {
          /* shorter */
        }
      }
      if (taken === 0) {
        out += `\\x${raw[i].toString(16).padStart(2, "0")}`;
        taken = 1;
      }
      i += taken;
    }
    return out;
  }
}

/**
 * All regular files under root, sorted, skipping dependency and output folders, dot-folders and
 * excluded names. A folder that cannot be listed, a source file that is not a regular file (a
 * FIFO, a device, a broken link) or whose name is not UTF-8 is a diagnostic, never read.
 */
export function listFiles(rootDir: string, exclude: string[], diagnostics: DiagnosticRecord[], scope: ScopeCounter): string[] {
  const out: string[] = [];
  const excluded = exclude.map(namePattern);
  const isExcluded = (name: string) => UNCOUNTED_FOLDERS.has(name) || excluded.some((re) => re.test(name));
  const walk = (dir: string) => {
    let entries: fs.Dirent<Buffer>[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true, encoding: "buffer" });
    } catch (e) {
      diagnostics.push(diag(relPath(rootDir, dir) || ".", 0, "unreadable", "error",
        `folder cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"}); its files are not analysed`));
      return;
    }
    entries.sort((a, b) => Buffer.compare(a.name, b.name));
    for (const e of entries) {
      const plain = new TextDecoder("utf-8").decode(e.name);
      const shown = displayName(e.name);
      const full = path.join(dir, plain);
      const relShown = relPath(rootDir, dir) ? `${relPath(rootDir, dir)}/${shown}` : shown;
      if (e.isDirectory()) {
        if (isExcluded(plain) || (plain.startsWith(".") && !folderRule(plain))) continue;
        const rule = folderRule(plain) ?? (plain === "lib" && isCompiledLib(namesIn(full)) ? "build-output" : undefined);
        if (rule) {
          scope.add(rule, countSources(full, isExcluded));
          continue;
        }
        if (plain.startsWith(".")) continue;
        if (shown !== plain) {
          diagnostics.push(diag(relShown, 0, "unreadable", "error", "folder name is not valid UTF-8; its files are not analysed"));
          continue;
        }
        walk(full);
        continue;
      }
      if (isExcluded(plain)) continue;
      const source = TS_SOURCE.test(plain);
      const rule = source ? fileRule(plain) : undefined;
      if (rule) {
        scope.add(rule);
        continue;
      }
      if (source && shown !== plain) {
        diagnostics.push(diag(relShown, 0, "unreadable", "error", "file name is not valid UTF-8; not read"));
        continue;
      }
      if (e.isFile()) {
        out.push(full);
        continue;
      }
      if (!source) continue;
      // a link, FIFO, socket or device named like a source file
      let kind = "a special file";
      try {
        const st = fs.statSync(full);
        if (st.isFile()) {
          out.push(full);
          continue;
        }
        kind = st.isFIFO() ? "a FIFO" : st.isCharacterDevice() ? "a character device" : st.isDirectory() ? "a folder"
          : st.isSocket() ? "a socket" : kind;
      } catch (err) {
        kind = `a broken link (${(err as NodeJS.ErrnoException).code ?? "error"})`;
      }
      diagnostics.push(diag(relShown, 0, "unreadable", "error", `not a regular file (${kind}); not read`));
    }
  };
  walk(rootDir);
  return out;
}

function namesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** TypeScript sources (declarations aside) under a skipped folder, for the default-scope count. */
function countSources(dir: string, isExcluded: (name: string) => boolean): number {
  let n = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (isExcluded(e.name)) continue;
    if (e.isDirectory()) n += countSources(path.join(dir, e.name), isExcluded);
    else if (TS_SOURCE.test(e.name) && !DECLARATION.test(e.name)) n++;
  }
  return n;
}

/** The bytes of the last file read: one buffer, grown to the largest file, for every read. A
 *  buffer per file (the warm cache reads every file of the project, the program every source)
 *  leaves tens of megabytes of freed native memory the process never gives back. */
let scratch = Buffer.allocUnsafe(1 << 16);

/** Read a regular file of at most maxBytes without blocking (a FIFO is never waited on). The
 *  bytes returned are valid until the next read: decode or digest them at once. */
/** Why a file of `size` bytes is not read under a limit of `maxBytes`. */
function tooLarge(size: number, maxBytes: number): string {
  return `file has ${size} bytes, over the limit of ${maxBytes}; skipped`;
}

export function readRegularFile(file: string, maxBytes: number): Buffer | { code: string; reason: string } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { code: "unreadable", reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { code: "unreadable", reason: "not a regular file; not read" };
    if (st.size > maxBytes) return { code: "too-large", reason: tooLarge(st.size, maxBytes) };
    if (scratch.length < st.size) scratch = Buffer.allocUnsafe(Math.max(st.size, 2 * scratch.length));
    const buf = scratch;
    let got = 0;
    while (got < st.size) {
      const n = fs.readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch (e) {
    return { code: "unreadable", reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Deepest bracket nesting of a source text (parentheses, brackets, braces; strings and comments
 * skipped roughly). The compiler's parser and txscan's walker recurse per level: a file deeper
 * than MAX_NESTING would overflow the stack and lose the whole scan, so it is a diagnostic.
 */
export const MAX_NESTING = 150;
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 41 || c === 93 || c === 125) {
      if (depth > 0) depth--;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== c && text.charCodeAt(j) !== 10) j += text.charCodeAt(j) === 92 ? 2 : 1;
      i = j;
    }
  }
  return deepest;
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

/** A host for reading a tsconfig's options (its `extends` chain included) without the files its
 *  `include` patterns match: txscan chooses its own file set (listFiles), so listing the whole
 *  project a second time was wasted (vendure's core: about 0.14 s of every scan), and a warm
 *  scan repeated that listing to check it had not changed (warm-cache.ts, sameProbes). The
 *  options and the errors kept do not depend on the listing; only "no inputs found" (TS18003,
 *  left out below) does. Calls go to ts.sys when made, where the warm cache watches them. */
const OPTIONS_ONLY_HOST: ts.ParseConfigHost = {
  get useCaseSensitiveFileNames() {
    return ts.sys.useCaseSensitiveFileNames;
  },
  readDirectory: () => [],
  fileExists: (file) => ts.sys.fileExists(file),
  readFile: (file) => ts.sys.readFile(file),
};

function readConfig(rootDir: string, configPath: string, diagnostics: DiagnosticRecord[]): ts.CompilerOptions {
  const rel = relPath(rootDir, configPath);
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) {
    diagnostics.push(diag(rel, 0, "parse-error", "warning",
      `tsconfig could not be read (${ts.flattenDiagnosticMessageText(read.error.messageText, " ")}); using defaults`));
    return defaultOptions();
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, OPTIONS_ONLY_HOST, path.dirname(configPath), undefined, configPath);
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

/** A file's bytes as an overlay gives them: its text, or the refusal readRegularFile gives a large file. */
function overlayBytes(text: string, maxBytes: number): Buffer | { code: string; reason: string } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > maxBytes) return { code: "too-large", reason: tooLarge(bytes.length, maxBytes) };
  return bytes;
}

/** Whether a source file parsed before was parsed as a request for `languageVersion` would parse it. */
function sameTarget(sf: ts.SourceFile, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions): boolean {
  if (typeof languageVersion !== "object") return sf.languageVersion === languageVersion;
  return sf.languageVersion === languageVersion.languageVersion && sf.impliedNodeFormat === languageVersion.impliedNodeFormat;
}

/** What only building the program, or emitting it, needs, released once it is built (a scan
 *  keeps its program to the end; on an application of 3,000 files these are about 17 MB): the
 *  module resolutions with every location each one tried, and each file's set of identifier
 *  names, which the compiler reads only to invent unique names when it emits code (txscan never
 *  emits). The program resolves no module after it is built. */
function releaseParseState(program: ts.Program, moduleCache: ts.ModuleResolutionCache): void {
  moduleCache.clear();
  const noNames: ReadonlyMap<string, string> = new Map();
  for (const sf of program.getSourceFiles()) (sf as unknown as { identifiers: ReadonlyMap<string, string> }).identifiers = noNames;
}

// Lib and stub source files never change during a process: parse them once and share them
// between programs (the test suite builds many small programs).
const sharedFiles = new Map<string, ts.SourceFile>();

export function setupProgram(opts: ScanOptions): ProgramSetup {
  const rootDir = path.resolve(opts.root);
  const overlaid = (file: string) => opts.overlay?.texts.get(path.resolve(file));
  const read = (file: string, maxBytes: number) => {
    const text = overlaid(file);
    return text === undefined ? readRegularFile(file, maxBytes) : overlayBytes(text, maxBytes);
  };
  const previous = new Map<string, ts.SourceFile>();
  for (const sf of opts.overlay?.previous?.program.getSourceFiles() ?? []) previous.set(path.resolve(sf.fileName), sf);
  const diagnostics: DiagnosticRecord[] = [];
  const scope = new ScopeCounter();
  const allFiles = listFiles(rootDir, opts.exclude ?? [], diagnostics, scope);

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
  /** Files the host could not read or would not parse: absolute path -> [code, reason]. */
  const refused = new Map<string, [string, string]>();
  for (const f of allFiles) {
    const rel = relPath(rootDir, f);
    if (JS_SOURCE.test(f)) {
      // JavaScript is not analysed; say so where it could hide transactions.
      const content = read(f, opts.maxFileBytes);
      const text = Buffer.isBuffer(content) ? content.toString("utf8") : "";
      if (/\btypeorm\b|\.transaction\s*\(|startTransaction\s*\(/.test(text)) {
        diagnostics.push(diag(rel, 0, "unknown-orm-pattern", "info", "JavaScript file uses TypeORM but is not analysed (TypeScript only)"));
      }
      continue;
    }
    if (!TS_SOURCE.test(f)) continue;
    let size = 0;
    try {
      const text = overlaid(f);
      size = text === undefined ? fs.statSync(f).size : Buffer.byteLength(text, "utf8");
    } catch (e) {
      diagnostics.push(diag(rel, 0, "unreadable", "error", `cannot read (${(e as NodeJS.ErrnoException).code ?? "error"}); not analysed`));
      continue;
    }
    if (size > opts.maxFileBytes) {
      oversized.add(path.resolve(f));
      diagnostics.push(diag(rel, 0, "too-large", "warning", tooLarge(size, opts.maxFileBytes)));
      continue;
    }
    roots.push(f);
  }

  const workspaces = workspacePackages(allFiles);
  const host = ts.createCompilerHost(options, true);
  rememberProbes(host);
  // JSDoc in TypeScript files gives no type information (only JavaScript's does, and that is
  // not analysed): left unparsed, as the compiler itself does when it only type-checks.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeInfo;
  const moduleCache = ts.createModuleResolutionCache(rootDir, (s) => s, options);
  const isAppSource = (file: string) => file.startsWith(rootDir + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`);
  const metadataDecorators = new MetadataDecorators({
    resolve: (specifier, containingFile) => {
      const r = ts.resolveModuleName(specifier, containingFile, options, host, moduleCache).resolvedModule;
      const file = r && !r.isExternalLibraryImport && /\.(ts|tsx)$/.test(r.resolvedFileName) && !DECLARATION.test(r.resolvedFileName) ? path.resolve(r.resolvedFileName) : undefined;
      return file && isAppSource(file) && !oversized.has(file) ? file : undefined;
    },
    read: (file) => {
      const buf = read(file, opts.maxFileBytes);
      if (!Buffer.isBuffer(buf)) return undefined;
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(buf);
      } catch {
        return undefined;
      }
    },
  }, options.target ?? ts.ScriptTarget.ES2021);
  const baseGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const resolved = path.resolve(fileName);
    const isShared = fileName.includes("/typescript/lib/lib.") || fileName.includes(path.sep + "stubs" + path.sep) || fileName.includes("/stubs/");
    const key = `${resolved}|${typeof languageVersion === "object" ? languageVersion.languageVersion : languageVersion}`;
    if (isShared && sharedFiles.has(key)) return sharedFiles.get(key);
    if (oversized.has(resolved)) return ts.createSourceFile(fileName, "", languageVersion);
    if (resolved.startsWith(rootDir + path.sep) && !resolved.includes(`${path.sep}node_modules${path.sep}`)) {
      const buf = read(resolved, opts.maxFileBytes);
      if (!Buffer.isBuffer(buf)) {
        if (buf.code === "too-large") oversized.add(resolved);
        else refused.set(resolved, [buf.code, buf.reason]);
        return ts.createSourceFile(fileName, "", languageVersion);
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
      } catch {
        undecodable.add(resolved);
        return ts.createSourceFile(fileName, "", languageVersion);
      }
      const depth = nestingDepth(text);
      if (depth > MAX_NESTING) {
        refused.set(resolved, ["parse-error", `nesting ${depth} levels deep (the limit is ${MAX_NESTING}); file not analysed`]);
        return ts.createSourceFile(fileName, "", languageVersion);
      }
      const blanked = blankedMigration(fileName, text, languageVersion) ?? (isMigrationSource(text) ? undefined : metadataDecorators.blanked(fileName, text));
      const parsed = previous.get(resolved);
      if (parsed && parsed.text === (blanked ?? text) && sameTarget(parsed, languageVersion)) return parsed;
      return ts.createSourceFile(fileName, blanked ?? text, languageVersion);
    }
    const parsed = previous.get(resolved);
    if (parsed && sameTarget(parsed, languageVersion)) return parsed;
    const sf = baseGetSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (sf && isShared) sharedFiles.set(key, sf);
    return sf;
  };

  // Failed resolutions, kept to report unresolved imports afterwards.
  const failed = new Map<string, ReadonlySet<string>>();
  const resolvedFrom = new Set<string>();
  host.resolveModuleNames = (moduleNames, containingFile, _reused, redirected, compilerOptions) => {
    resolvedFrom.add(containingFile);
    return moduleNames.map((name) => {
      const r = ts.resolveModuleName(name, containingFile, compilerOptions, host, moduleCache, redirected).resolvedModule;
      if (r && !/\.(js|jsx|mjs|cjs)$/.test(r.resolvedFileName)) return r;
      const stub = stubFor(name);
      if (stub) return { resolvedFileName: stub, extension: ts.Extension.Dts, isExternalLibraryImport: true };
      const ws = workspaces.get(name);
      if (ws) return { resolvedFileName: ws, extension: ts.Extension.Ts, isExternalLibraryImport: false };
      if (r) return r;
      if (!failed.has(containingFile)) failed.set(containingFile, new Set());
      (failed.get(containingFile) as Set<string>).add(name);
      return undefined;
    });
  };

  const kept = opts.overlay?.previous;
  const program = ts.createProgram({ rootNames: roots, options, host, oldProgram: kept?.program });
  for (const [file, names] of kept?.unresolved ?? []) {
    if (!resolvedFrom.has(file)) failed.set(file, names); // resolutions the compiler took from the kept program
  }
  releaseParseState(program, moduleCache);
  const checker = memoizedChecker(program.getTypeChecker());

  const files: ts.SourceFile[] = [];
  const reportedPackages = new Set<string>();
  for (const f of roots) {
    const sf = program.getSourceFile(f);
    const rel = relPath(rootDir, f);
    const problem = refused.get(path.resolve(f));
    if (problem) {
      diagnostics.push(diag(rel, 0, problem[0], "error", `${problem[1]}`));
      continue;
    }
    if (!sf) {
      diagnostics.push(diag(rel, 0, "unreadable", "error", "cannot read; not analysed"));
      continue;
    }
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
    if (isMigrationSource(sf.text)) {
      // a migration outside a migrations folder: it feeds the checker, it is not analysed
      scope.add("migration");
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
  if (scope.total > 0) diagnostics.push(diag(".", 0, "default-scope", "info", scope.message()));
  return { program, checker, rootDir, files, diagnostics, scope, unresolved: failed };
}
