// The warm cache of the TypeScript front end: what an earlier scan of the same project found,
// reused where nothing it depended on changed (docs/DECISIONS.md, "TypeScript warm cache").
//
// One JSON file (written by this module, read only when its `key` matches: settings, txscan's
// and ts-plugin's code) holds, per file of the project, a digest of its content, of its shape
// and of each of its units (warm-shape.ts); the files read outside the project (tsconfig
// chains, libraries, stubs) and what module resolution asked of the file system there; the
// last output; and per explicit transaction and per autocommit unit, its records with the
// units its walks read (warm-reads.ts); and per file, which of its `new`s put a class below a
// type of the application (warm-links.ts). Three cases:
// - nothing but comments between statements changed (every shape with its positions and every
//   unit as before): the last output is the output; no program is built;
// - shapes (without positions) as before and the facts found over the whole program
//   (entities, boundaries and wrappers, providers, implementations; `fingerprint`, named
//   without lines) too: each transaction and autocommit unit whose units are all unchanged
//   (same text, wherever they moved) is reused, its records moved to today's lines
//   (warm-moves.ts), the others are walked; a function whose return type is inferred and whose
//   code changed must also have the signature the last scan kept for it (warm-types.ts; kept
//   for the units the walks read), or everything is walked;
// - otherwise everything is walked.
// A scan with the cache writes the same bytes as one without (tests/test_typescript_warm.py).
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { AutocommitResult, Region } from "./autocommit";
import { BoundarySite } from "./boundaries";
import { DiagnosticRecord, EntityRecord, MetaRecord, renderIr, TransactionRecord } from "./ir";
import { listFiles, MAX_NESTING, nestingDepth, readRegularFile, relPath } from "./program";
import { ScopeCounter } from "./scope";
import { ReadLog } from "./warm-reads";
import { Moves, Unmovable } from "./warm-moves";
import { digest, fileShape, FileShape, place, unitFunction } from "./warm-shape";
import { isKeptLinks, KeptLinks, keptLinkFilter, linksOf } from "./warm-links";
import { inferredSignature } from "./warm-types";

const FORMAT = "txscan-ts-warm";
const VERSION = 5;

export interface WarmSettings {
  /** the cache file (read when present, replaced after the scan) */
  file: string;
  /** what the cache was written by and for (settings, txscan's and ts-plugin's code) */
  key: string;
  /** where to write which transactions were walked (JSON), when given */
  report?: string;
  /** transactions may be reused one by one (false when the walk has a depth bound: reach.ts
   *  then reads functions that are not noted) */
  partial: boolean;
  /** which output is made: with autocommit transactions ("all", `txscan scan`) or without
   *  ("explicit", `txscan lint`); both kinds of scan share one cache */
  output: "all" | "explicit";
}

interface FileEntry {
  content: string;
  /** TypeScript sources that parse: their shape (warm-shape.ts) */
  shape?: FileShape;
}

interface Entry {
  reach: [string, string][];
  transactions: TransactionRecord[];
  diagnostics: DiagnosticRecord[];
}

type Probe = [string, string, string];

interface Tables {
  format: string;
  version: number;
  key: string;
  target: number;
  files: Record<string, FileEntry>;
  listing: string;
  outside: Probe[];
  project: string;
  fingerprint: string;
  /** the last output of each kind (WarmSettings.output) */
  outputs: Record<string, string>;
  explicit: Record<string, Entry>;
  autocommit: Record<string, Entry>;
  /** the `new`s that linked a class below a type, per file (warm-links.ts) */
  links: KeptLinks;
  /** the inferred signature (warm-types.ts) of each unit whose signature stands for its code
   *  and that a kept walk read: `file#n` -> its text (null: not comparable) */
  signatures: Record<string, string | null>;
}

const TS_SOURCE = /\.(ts|tsx|mts|cts)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;

export class WarmCache {
  private old: Tables | undefined;
  private files: Record<string, FileEntry> = {};
  private listing = "";
  private outside: Probe[] = [];
  private project = "";
  private fingerprint = "";
  private partial = false;
  private explicit: Record<string, Entry> = {};
  private autocommit: Record<string, Entry> = {};
  private outputs: Record<string, string> = {};
  private links: KeptLinks = {};
  /** this scan's signatures of units (Tables.signatures): those computed so far, all of them once the walks are done */
  private signatures: Record<string, string | null> = {};
  /** the program, while signatures may be asked of it (takeShapes to keepSignatures) */
  private program: ts.Program | undefined;
  /** every unit whose code changed lends its callers what it lent before (its signature) */
  private typesAsBefore = false;
  /** `new`s the class hierarchy asked the checker about (undefined: no program was built) */
  private newsAsked: number | undefined;
  /** the last scan is reused whole (nothing but comments between statements changed) */
  private whole = false;
  readonly reads = new ReadLog();
  /** ids of the transactions walked by this scan (the others were reused) */
  readonly walked: string[] = [];
  private target: number = ts.ScriptTarget.Latest;
  /** how kept records move to today's lines (partial reuse only) */
  private moves: Moves | undefined;
  private reported = false;

  constructor(private rootDir: string, private settings: WarmSettings, private exclude: string[], private maxFileBytes: number) {
    this.old = load(settings.file, settings.key);
    if (this.old) this.target = this.old.target;
  }

  // ------------------------------------------------------------ before the program

  /** The last output, when nothing it depends on changed (moved to today's lines when only
   *  positions and trivia did); undefined otherwise. */
  unchangedOutput(): string | undefined {
    const diagnostics: DiagnosticRecord[] = [];
    const scope = new ScopeCounter();
    const listed = listFiles(this.rootDir, this.exclude, diagnostics, scope);
    this.listing = digest(JSON.stringify([diagnostics, scope.files]));
    const old = this.old;
    let same = old !== undefined && old.listing === this.listing && Object.keys(old.files).length === listed.length;
    let placed = true;
    for (const file of listed) {
      const rel = relPath(this.rootDir, file);
      const entry = this.entryOf(file, rel);
      this.files[rel] = entry;
      const before = old?.files[rel];
      if (!before) same = false;
      if (!same || !before || before.content === entry.content) continue;
      // the same shape and units: the same program but for positions and trivia
      same = !!entry.shape && !!before.shape && entry.shape.shape === before.shape.shape &&
        JSON.stringify(entry.shape.units) === JSON.stringify(before.shape.units);
      placed &&= entry.shape?.placed === before.shape?.placed;
    }
    if (!old || !same || !sameProbes(old.outside)) return undefined;
    let outputs = old.outputs;
    if (!placed) {
      const moves = new Moves(old.files, this.files);
      try {
        outputs = Object.fromEntries(Object.entries(old.outputs).map(([kind, ir]) => [kind, movedIr(ir, moves)]));
      } catch (e) {
        if (e instanceof Unmovable) return undefined;
        throw e;
      }
      this.moves = moves;
    }
    this.outside = old.outside;
    this.project = old.project;
    this.fingerprint = old.fingerprint;
    // what is reused whole stays valid for the other kind of output too
    this.whole = true;
    this.outputs = { ...outputs };
    return outputs[this.settings.output];
  }

  private entryOf(file: string, rel: string): FileEntry {
    const content = readRegularFile(file, this.maxFileBytes);
    if (!Buffer.isBuffer(content)) return { content: `${content.code}: ${content.reason}` };
    const entry: FileEntry = { content: digest(content) };
    const before = this.old?.files[rel];
    if (before && before.content === entry.content) return before;
    // without an earlier scan, shapes are taken from the program's own parse (begin)
    if (!this.old || !TS_SOURCE.test(file) || DECLARATION.test(file)) return entry;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      return entry;
    }
    if (nestingDepth(text) > MAX_NESTING) return entry;
    const sf = ts.createSourceFile(file, text, this.target, true);
    return shaped(entry, sf);
  }

  // ------------------------------------------------------------ with the program

  /** Run `setup` (the program's creation) noting what it reads outside the project's files. */
  recordOutside<T>(setup: () => T): T {
    const inside = new Set(Object.keys(this.files).map((rel) => path.resolve(this.rootDir, rel)));
    const seen = new Map<string, Probe>();
    const sys = ts.sys as unknown as Record<string, (...a: unknown[]) => unknown>;
    const saved: Record<string, (...a: unknown[]) => unknown> = {};
    for (const op of PROBES) {
      saved[op] = sys[op];
      const real = sys[op];
      if (!real) continue;
      sys[op] = (...args: unknown[]) => {
        const result = real.apply(ts.sys, args);
        const target = typeof args[0] === "string" ? path.resolve(args[0]) : "";
        const key = `${op}\u0000${target}\u0000${encodeArgs(args.slice(1))}`;
        if (target && !inside.has(target) && !seen.has(key)) seen.set(key, [op, encodeArgs(args.map((a, i) => (i === 0 ? target : a))), outcome(result)]);
        return result;
      };
    }
    try {
      return setup();
    } finally {
      for (const op of PROBES) if (saved[op]) sys[op] = saved[op];
      this.outside = [...seen.values()].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] < b[0] ? -1 : 1));
    }
  }

  /** The program is built: take the shapes of the files it parsed (and the project's digest). */
  takeShapes(program: ts.Program, appFiles: readonly ts.SourceFile[]): void {
    // Shapes parsed for another language version than the program's are parsed again.
    const target = appFiles[0]?.languageVersion ?? this.target;
    const reparse = target !== this.target;
    this.target = target;
    for (const [rel, entry] of Object.entries(this.files)) {
      if ((entry.shape && !reparse) || !TS_SOURCE.test(rel) || DECLARATION.test(rel)) continue;
      const sf = program.getSourceFile(path.resolve(this.rootDir, rel));
      // an empty text: empty, or refused by the program (not UTF-8, nested too deep): content only
      this.files[rel] = sf && sf.text.length > 0 ? shaped({ content: entry.content }, sf) : { content: entry.content };
    }
    // Sources under the root that the program read but the project's files leave out (a test
    // helper imported by application code): by content, as the files read outside the root.
    const extra: Probe[] = [];
    for (const sf of program.getSourceFiles()) {
      const file = path.resolve(sf.fileName);
      const rel = relPath(this.rootDir, file);
      if (rel.startsWith("..") || path.isAbsolute(rel) || rel.split("/").includes("node_modules") || this.files[rel]) continue;
      extra.push(["readFile", encodeArgs([file]), outcome(sf.text)]);
    }
    this.outside = [...this.outside, ...extra.sort((a, b) => (a[1] < b[1] ? -1 : 1))];
    const shapes = Object.keys(this.files).sort().map((rel) => [rel, this.files[rel].shape?.shape ?? this.files[rel].content]);
    this.project = digest(JSON.stringify([this.settings.key, this.listing, shapes, this.outside]));
    this.program = program;
    this.typesAsBefore = this.old !== undefined && this.old.project === this.project && this.sameSignatures(this.old);
  }

  /** With the same shapes: whether each unit whose signature stands for its code and whose
   *  code changed has the signature it had (kept when a walk read it; a unit without one counts
   *  as changed). The first difference ends the comparison. */
  private sameSignatures(old: Tables): boolean {
    for (const [rel, entry] of Object.entries(this.files)) {
      const before = old.files[rel];
      if (!entry.shape?.signed || before?.content === entry.content) continue;
      for (const [n, code] of Object.entries(entry.shape.signed)) {
        if (before?.shape?.signed?.[n] === code) continue;
        const unit = `${rel}#${n}`;
        const was = old.signatures[unit];
        if (was === undefined || was === null || this.signatureOf(unit) !== was) return false;
      }
    }
    return true;
  }

  /** A unit's signature today (computed once per scan). */
  private signatureOf(unit: string): string | null {
    const known = this.signatures[unit];
    if (known !== undefined) return known;
    const { rel, n } = unitParts(unit);
    const sf = this.program?.getSourceFile(path.resolve(this.rootDir, rel));
    const fn = sf && unitFunction(sf, Number(n));
    const text = fn && ts.isFunctionLike(fn) && this.program ? inferredSignature(this.program.getTypeChecker(), fn) ?? null : null;
    return (this.signatures[unit] = text);
  }

  /** The walks are done: the signatures of the units their entries read are kept for the next
   *  scan (what is kept of the last scan still holds while every type is as then; the others
   *  are asked of the checker now, walks' types already known to it). */
  keepSignatures(): void {
    const old = this.old;
    if (this.partial && this.typesAsBefore && old) {
      for (const [unit, text] of Object.entries(old.signatures)) {
        if (this.signatures[unit] !== undefined) continue;
        const { rel, n } = unitParts(unit);
        const code = this.files[rel]?.shape?.signed?.[n];
        if (code !== undefined && code === old.files[rel]?.shape?.signed?.[n]) this.signatures[unit] = text;
      }
    }
    for (const entry of [...Object.values(this.explicit), ...Object.values(this.autocommit)]) {
      for (const [unit] of entry.reach) if (this.signed(unit)) this.signatureOf(unit);
    }
    this.program = undefined;
  }

  /** Whether a unit (`file#n`) is one whose signature stands for its code. */
  private signed(unit: string): boolean {
    const { rel, n } = unitParts(unit);
    return this.files[rel]?.shape?.signed?.[n] !== undefined;
  }

  /** Which `new`s the class hierarchy asks the checker about (warm-links.ts): while the
   *  project's shapes are as in the last scan, those of unchanged files that linked then. */
  structuralLinkFilter(): ((n: ts.NewExpression) => boolean) | undefined {
    const old = this.old;
    if (!old || old.project !== this.project || !this.typesAsBefore) return undefined;
    return keptLinkFilter(this.rootDir, old.links, (rel) => old.files[rel] !== undefined && old.files[rel].content === this.files[rel]?.content);
  }

  /** The `new`s of `appFiles` that linked a class below a type (kept for the next scan), and
   *  how many `new`s the checker was asked about (in the report). */
  noteLinks(appFiles: readonly ts.SourceFile[], linking: readonly ts.NewExpression[], asked: number): void {
    this.links = linksOf(this.rootDir, appFiles, linking);
    this.newsAsked = asked;
  }

  /** Decide whether transactions may be reused one by one (takeShapes first). `found` is what
   *  was found over the whole program. */
  begin(found: unknown): void {
    this.fingerprint = digest(describe(found, this.rootDir, (file, line) => this.lineName(file, line)));
    const old = this.old;
    this.partial = this.settings.partial && old !== undefined && old.project === this.project && this.typesAsBefore && old.fingerprint === this.fingerprint;
    if (this.partial && old) this.moves = new Moves(old.files, this.files);
  }

  /** A line of a project file named without counting lines: the anchor at or before its
   *  start (warm-shape.ts) and how many lines further. */
  private lineName(file: string, line: number): string {
    const anchors = this.files[file]?.shape?.anchors;
    if (!anchors) return `${line}`;
    let last = -1;
    for (let i = 0; 2 * i < anchors.length && anchors[2 * i] <= line - 1; i++) last = i;
    return last < 0 ? `${line}` : `${last}+${line - 1 - anchors[2 * last]}`;
  }

  /** An explicit transaction's record and diagnostics: reused, or walked now. */
  transaction(site: BoundarySite, walk: () => { tx: TransactionRecord; diagnostics: DiagnosticRecord[] }): { tx: TransactionRecord; diagnostics: DiagnosticRecord[] } {
    // the site's lines follow from its nodes: a site that only moved is found under its key
    const { line, endLine, ...placed } = site;
    const key = describe(placed, this.rootDir);
    const kept = this.reusable(this.old?.explicit[key]);
    const tx = kept?.transactions[0];
    // what the site says today must be what the moved record says
    if (kept && tx && tx.line === line && tx.end_line === endLine && tx.file === relPath(this.rootDir, site.anchor.getSourceFile().fileName)) {
      this.explicit[key] = kept;
      return { tx, diagnostics: kept.diagnostics };
    }
    this.reads.reset();
    const out = walk();
    this.explicit[key] = { reach: this.reach(), transactions: [out.tx], diagnostics: out.diagnostics };
    this.walked.push(out.tx.id);
    return out;
  }

  /** One autocommit unit's records: reused, or walked now. */
  unit(fn: ts.Node, regions: readonly Region[], walk: () => AutocommitResult): AutocommitResult {
    const sf = fn.getSourceFile();
    const key = JSON.stringify([describe(fn, this.rootDir), regions.map((r) => [place(sf, r.pos), place(sf, r.end)])]);
    const kept = this.reusable(this.old?.autocommit[key]);
    if (kept) {
      this.autocommit[key] = kept;
      return { transactions: kept.transactions, diagnostics: kept.diagnostics };
    }
    this.reads.reset();
    const out = walk();
    this.autocommit[key] = { reach: this.reach(), transactions: out.transactions, diagnostics: out.diagnostics };
    this.walked.push(...out.transactions.map((t) => t.id));
    return out;
  }

  /** A kept entry whose units are all as then, its records moved to today's lines; undefined
   *  when it must be walked again. */
  private reusable(entry: Entry | undefined): Entry | undefined {
    if (!this.partial || !entry) return undefined;
    for (const [unit, was] of entry.reach) if (this.unitDigest(unit) !== was) return undefined;
    return this.moved(entry);
  }

  private moved(entry: Entry): Entry | undefined {
    if (!this.moves || this.moves.none) return entry;
    try {
      return { reach: entry.reach, transactions: this.moves.moved(entry.transactions), diagnostics: this.moves.moved(entry.diagnostics) };
    } catch (e) {
      if (e instanceof Unmovable) return undefined;
      throw e;
    }
  }

  /** `file#n`: the digest of the file's unit number n today. */
  private unitDigest(unit: string): string | undefined {
    const { rel, n } = unitParts(unit);
    return this.files[rel]?.shape?.units[Number(n)];
  }

  private reach(): [string, string][] {
    return this.reads.unitsSince(this.rootDir, 0).map((unit) => [unit, this.unitDigest(unit) ?? ""]);
  }

  // ------------------------------------------------------------ after the scan

  /** Replace the cache file with this scan's (atomically; a failure only costs the next scan time). */
  save(ir: string): void {
    // Entries this scan did not look at (all of them when it was reused whole; autocommit units
    // for an explicit-only scan) are kept while the project-wide facts they were made under are
    // unchanged: each is checked again when used.
    const old = this.old;
    const autocommitKept = this.whole || (this.partial && this.settings.output === "explicit");
    // kept without being looked at: moved to today's lines too (those that cannot be are dropped)
    const carried: Record<string, Entry> = {};
    if (autocommitKept && old) {
      for (const [key, entry] of Object.entries(old.autocommit)) {
        if (this.autocommit[key]) continue;
        const moved = this.moved(entry);
        if (moved) carried[key] = moved;
      }
    }
    const tables: Tables = {
      format: FORMAT, version: VERSION, key: this.settings.key, target: this.target, files: this.files, listing: this.listing,
      outside: this.outside, project: this.project, fingerprint: this.fingerprint,
      outputs: { ...this.outputs, [this.settings.output]: ir },
      explicit: this.whole && old ? movedEntries(old.explicit, (e) => this.moved(e)) : this.explicit,
      autocommit: { ...carried, ...this.autocommit },
      links: this.whole && old ? unchangedLinks(old, this.files) : this.links,
      signatures: this.whole && old ? old.signatures : this.signatures,
    };
    const temporary = `${this.settings.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.settings.file), { recursive: true });
      writeWithHeader(temporary, tables);
      fs.renameSync(temporary, this.settings.file);
    } catch (e) {
      process.stderr.write(`txscan-ts: info: cache not written to ${this.settings.file}: ${(e as Error).message}\n`);
      try {
        fs.unlinkSync(temporary);
      } catch {
        /* not there */
      }
    }
    this.writeReport();
  }

  /** Write which transactions were walked (once; before the cache file when the IR is printed
   *  between the two). */
  writeReport(): void {
    if (!this.settings.report || this.reported) return;
    this.reported = true;
    try {
      fs.writeFileSync(this.settings.report, JSON.stringify({ walked: this.walked, newsAsked: this.newsAsked }));
    } catch (e) {
      process.stderr.write(`txscan-ts: info: cache report not written to ${this.settings.report}: ${(e as Error).message}\n`);
    }
  }
}

/** An IR text with its records moved to today's lines (renderIr orders them as a scan does). */
function movedIr(ir: string, moves: Moves): string {
  const records = ir.split("\n").filter((line) => line).map((line) => JSON.parse(line));
  const of = <T>(type: string) => moves.moved(records.filter((r) => r.type === type)) as T[];
  return renderIr(records[0] as MetaRecord, of<EntityRecord>("entity"), of<TransactionRecord>("transaction"), of<DiagnosticRecord>("diagnostic"));
}

/** The kept links of the files whose content is as when they were found (a scan reused whole
 *  builds no program: a file whose positions moved is asked about again next time). */
function unchangedLinks(old: Tables, files: Record<string, FileEntry>): KeptLinks {
  const out: KeptLinks = {};
  for (const [rel, positions] of Object.entries(old.links)) if (old.files[rel]?.content === files[rel]?.content) out[rel] = positions;
  return out;
}

function movedEntries(entries: Record<string, Entry>, move: (e: Entry) => Entry | undefined): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  for (const [key, entry] of Object.entries(entries)) {
    const moved = move(entry);
    if (moved) out[key] = moved;
  }
  return out;
}

/** What module resolution and the program ask of the file system (ts.sys). */
const PROBES = ["readFile", "fileExists", "directoryExists", "getDirectories", "realpath", "readDirectory"];

function outcome(result: unknown): string {
  if (typeof result === "string") return digest(result);
  return JSON.stringify(result ?? null);
}

/** Arguments as JSON, keeping `undefined` (readDirectory's optional patterns) apart from null. */
const UNDEFINED = "\u0000undefined";

function encodeArgs(args: unknown[]): string {
  return JSON.stringify(args.map((a) => (a === undefined ? UNDEFINED : a)));
}

function decodeArgs(text: string): unknown[] {
  return (JSON.parse(text) as unknown[]).map((a) => (a === UNDEFINED ? undefined : a));
}

/** The same questions asked again give the same answers. */
function sameProbes(probes: Probe[]): boolean {
  const sys = ts.sys as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const [op, args, was] of probes) {
    if (!sys[op]) return false;
    let now: string;
    try {
      now = outcome(sys[op].apply(ts.sys, decodeArgs(args)));
    } catch {
      return false;
    }
    if (now !== was) return false;
  }
  return true;
}

/** A unit's key `file#n` (warm-reads.ts): the file relative to the root and the unit's number. */
function unitParts(unit: string): { rel: string; n: string } {
  const hash = unit.lastIndexOf("#");
  return { rel: unit.slice(0, hash), n: unit.slice(hash + 1) };
}

function isKeptSignatures(value: unknown): value is Record<string, string | null> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string" || v === null);
}

function shaped(entry: FileEntry, sf: ts.SourceFile): FileEntry {
  if ((sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length) return entry;
  return { ...entry, shape: fileShape(sf) };
}

function load(file: string, key: string): Tables | undefined {
  let raw: Buffer;
  try {
    raw = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  // read as bytes: the body's digest is of its bytes, and the text is decoded once
  const end = raw.indexOf(NEWLINE);
  // a file of an earlier format (one line, no header) is out of date, not damaged
  if (end < 0 && raw.subarray(0, 64).toString("utf8").startsWith(`{"format":"${FORMAT}","version":`)) return undefined;
  try {
    if (end < 0) throw new Error("no header");
    const header = JSON.parse(raw.toString("utf8", 0, end)) as Header;
    if (header.format !== FORMAT || header.version !== VERSION || header.key !== key) return undefined;
    if (header.body !== digest(raw.subarray(end + 1))) throw new Error("body digest");
    const tables = JSON.parse(raw.toString("utf8", end + 1)) as Tables;
    if (tables.format !== FORMAT || tables.version !== VERSION || tables.key !== key) throw new Error("tables");
    if (!isKeptLinks(tables.links)) throw new Error("links");
    if (!isKeptSignatures(tables.signatures)) throw new Error("signatures");
    return tables;
  } catch {
    process.stderr.write(`txscan-ts: info: cache ${file} is damaged; it is rebuilt\n`);
    return undefined;
  }
}

const NEWLINE = 0x0a;

/** The first line of the cache file. The body's digest is checked before anything in it is
 *  trusted: the tables are read without checking every field's shape, and a change that leaves
 *  valid JSON (a flipped character, an edited value) would otherwise reach the scan as data. */
interface Header {
  format: string;
  version: number;
  key: string;
  body: string;
}

/** Write the header line and the body. The body is encoded to bytes once, digested and written
 *  as they are: joining the two texts first held a second copy of the body (26 MB on vendure's
 *  core, at the node process's peak). */
function writeWithHeader(file: string, tables: Tables): void {
  const body = Buffer.from(JSON.stringify(tables), "utf8");
  const header: Header = { format: FORMAT, version: VERSION, key: tables.key, body: digest(body) };
  const fd = fs.openSync(file, "w");
  try {
    for (const bytes of [Buffer.from(`${JSON.stringify(header)}\n`, "utf8"), body]) {
      // a write may take fewer bytes than given (as fs.writeFileSync, go on until all are written)
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
    }
  } finally {
    fs.closeSync(fd);
  }
}

// ------------------------------------------------------------ describing what was found

/** Text equal for two scans exactly when `value` (facts found over the program, a boundary
 *  site, a function) holds the same things: nodes by file, position and kind, symbols by name
 *  and first declaration; the checker, the program and types (which follow from the shapes)
 *  are left out. */
export function describe(value: unknown, rootDir: string, lineName?: (file: string, line: number) => string): string {
  const out: string[] = [];
  const ids = new Map<object, number>();
  const where = (n: ts.Node): string => {
    const sf = n.getSourceFile();
    if (!sf) return `?${n.kind}`;
    const rel = relPath(rootDir, sf.fileName);
    if (ts.isSourceFile(n)) return `${rel}:${n.kind}`;
    const pos = n.pos >= 0 ? n.getStart(sf) : 0;
    // positions by anchor (warm-shape.ts) in the application's sources: the same for a node
    // that only moved (libraries and declarations are compared by content)
    if (sf.isDeclarationFile || rel.startsWith("..") || path.isAbsolute(rel)) return `${rel}:${pos}:${n.end}:${n.kind}`;
    return `${rel}:${place(sf, pos)}:${place(sf, n.end)}:${n.kind}`;
  };
  const visit = (v: unknown): void => {
    if (v === null || v === undefined || typeof v !== "object") {
      out.push(typeof v === "function" ? "f" : JSON.stringify(v) ?? "u");
      return;
    }
    const r = v as Record<string, unknown>;
    if (typeof r.kind === "number" && typeof r.pos === "number" && typeof r.end === "number" && "parent" in r) {
      out.push(`N${where(v as ts.Node)}`);
      return;
    }
    if (typeof r.flags === "number" && "escapedName" in r) {
      const decl = (v as ts.Symbol).declarations?.[0];
      out.push(`S${String(r.escapedName)}@${decl ? where(decl) : ""}`);
      return;
    }
    if ((typeof r.flags === "number" && "checker" in r) || typeof r.getTypeAtLocation === "function" || typeof r.getSourceFiles === "function") {
      out.push("T");
      return;
    }
    const seen = ids.get(v);
    if (seen !== undefined) {
      out.push(`R${seen}`);
      return;
    }
    ids.set(v, ids.size);
    if (Array.isArray(v)) {
      out.push("[");
      v.forEach(visit);
      out.push("]");
    } else if (v instanceof Map) {
      out.push("M{");
      for (const [k, x] of v) {
        visit(k);
        visit(x);
      }
      out.push("}");
    } else if (v instanceof Set) {
      out.push("S{");
      for (const x of v) visit(x);
      out.push("}");
    } else {
      out.push("{");
      // a record's line (an entity's), named without counting lines
      const named = lineName && typeof r.file === "string" && typeof r.line === "number";
      for (const k of Object.keys(v)) {
        out.push(k);
        if (named && k === "line") out.push(lineName!(r.file as string, r.line as number));
        else visit(r[k]);
      }
      out.push("}");
    }
  };
  visit(value);
  return out.join(" ");
}
