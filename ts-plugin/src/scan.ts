// One scan, end to end: program -> entities -> boundaries -> one walk per transaction -> IR.
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { autocommitTransactions, UnitReuse } from "./autocommit";
import { BoundaryFinder } from "./boundaries";
import { EntityIndex } from "./entities";
import { HandleTypes } from "./handles";
import { canonicalJson, DiagnosticRecord, EntityRecord, MetaRecord, renderIr, TransactionRecord } from "./ir";
import { lineOf, OriginResolver } from "./names";
import { KeptProgram, relPath, ScanOptions, setupProgram } from "./program";
import { SyntaxOutline } from "./syntax-outline";
import { HierarchyIndex } from "./hierarchy";
import { EffectReach } from "./reach";
import { BusHandlerIndex, ContainerIndex, ProviderIndex } from "./providers";
import { configuresExternalQueryCache } from "./query-cache";
import { EMPTY_CATALOG, UserCatalog } from "./settings";
import { TransactionWalk, WalkEnv } from "./walker";
import { WalkMemo } from "./walk-memo";
import { WarmCache, WarmSettings } from "./warm-cache";

export interface ScanResult {
  ir: string;
  transactions: TransactionRecord[];
  diagnostics: DiagnosticRecord[];
}

/** No depth bound unless one is asked for: recursion is cut on the call stack, helpers walked
 *  before in the same context are replayed (walk-memo.ts), and the node budget bounds a walk. */
export const DEFAULTS = { maxFileBytes: 2_000_000, depth: Number.POSITIVE_INFINITY };

/** `autocommit: false` reports explicit transactions only (the statements outside them are
 *  then not reported at all). */
/** `walkFiles` (paths relative to the root): only the explicit transactions found in these
 *  files are walked (a rewrite's verification needs no others); the rest of the scan is whole. */
/** `warm`: the warm cache (warm-cache.ts): what did not change since the last scan is reused. */
/** `keepProgram`: the scan's program is kept for re-analyses of edited files (scanEdited), when it is small. */
export type ScanSettings = Partial<Omit<ScanOptions, "root">> & { catalog?: UserCatalog; autocommit?: boolean; memo?: WalkMemo | null; walkFiles?: string[]; warm?: WarmSettings; keepProgram?: boolean };

export function scan(root: string, options: ScanSettings = {}): ScanResult {
  const { result, saveCache } = scanBeforeCacheSave(root, options);
  saveCache();
  return result;
}

/** A scan whose warm cache is not yet written: `saveCache` writes it (the command line prints
 *  the IR first, so that the caller reads it while the cache file is written). Which
 *  transactions were walked (the cache report) is written before this returns. */
export function scanBeforeCacheSave(root: string, options: ScanSettings = {}): { result: ScanResult; saveCache: () => void; program?: KeptProgram } {
  const opts = scanOptions(root, options);
  const timings = new PhaseTimer();
  const warm = options.warm && !options.walkFiles ? new WarmCache(path.resolve(root), options.warm, opts.exclude ?? [], opts.maxFileBytes) : undefined;
  const unchanged = warm?.unchangedOutput();
  timings.lap("ts-warm-check");
  if (warm && unchanged !== undefined) {
    warm.writeReport();
    timings.writeIfAsked();
    // the root as given to this scan (the rest of the output names no path outside the project)
    const ir = canonicalJson(metaOf(root)) + unchanged.slice(unchanged.indexOf("\n"));
    return { result: { ir, ...recordsOf(ir) }, saveCache: () => warm.save(unchanged) };
  }
  const found = analyse(opts, options, warm, timings);
  timings.writeIfAsked();
  // a large program is not kept: it is released before the output is rendered, as always
  const program = options.keepProgram && process.memoryUsage().heapUsed <= LARGE_HEAP_BYTES ? found.program : undefined;
  found.program = undefined;
  collectReleasedProgram();
  const ir = renderIr(metaOf(root), found.entities, found.transactions, found.diagnostics);
  warm?.writeReport();
  return { result: { ir, transactions: found.transactions, diagnostics: found.diagnostics }, saveCache: () => warm?.save(ir), program };
}

/** The IR of a scan of `root` with some files edited (absolute path -> text, as if written
 *  there): a rewrite's re-analysis. Only the explicit transactions of `walkFiles` are walked,
 *  and no autocommit transaction is made, as a scan of an edited copy with those settings does.
 *  `previous`: the program of the scan of `root` (scanBeforeCacheSave's `program`); its
 *  unchanged files are reused (program.ts Overlay). Without it the program is built afresh. */
export function scanEdited(root: string, options: ScanSettings, texts: ReadonlyMap<string, string>, walkFiles: string[],
                           previous?: KeptProgram): string {
  const settings: ScanSettings = { ...options, warm: undefined, keepProgram: false, autocommit: false, walkFiles, memo: undefined };
  const found = analyse({ ...scanOptions(root, settings), overlay: { texts, previous } }, settings, undefined, new PhaseTimer());
  return renderIr(metaOf(root), found.entities, found.transactions, found.diagnostics);
}

/** The program's options of a scan of `root` with `options`, defaults filled in. */
function scanOptions(root: string, options: ScanSettings): ScanOptions {
  return { ...options, root, maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes, depth: options.depth ?? DEFAULTS.depth, tsconfig: options.tsconfig };
}

/** What a scan found: its records, and nothing of the program they were found in but the
 *  program itself where it is to be kept (ScanSettings.keepProgram). */
interface Findings {
  entities: EntityRecord[];
  transactions: TransactionRecord[];
  diagnostics: DiagnosticRecord[];
  program?: KeptProgram;
}

/** The program built, its transactions found and walked: the records, the program left behind. */
function analyse(opts: ScanOptions, options: ScanSettings, warm: WarmCache | undefined, timings: PhaseTimer): Findings {
  const setup = warm ? warm.recordOutside(() => setupProgram(opts)) : setupProgram(opts);
  collectLargeGarbage();
  timings.lap("ts-program");
  const { checker, rootDir, files } = setup;
  const diagnostics: DiagnosticRecord[] = [...setup.diagnostics];
  const appFiles = new Set(files.map((f) => path.resolve(f.fileName)));
  // asked for every node the walks meet: the answer kept per source file (path.resolve is not cheap)
  const appFile = new Map<ts.SourceFile, boolean>();
  const isAppFile = (sf: ts.SourceFile) => {
    let known = appFile.get(sf);
    if (known === undefined) appFile.set(sf, (known = appFiles.has(path.resolve(sf.fileName))));
    return known;
  };

  // the nodes the entity index, the boundary finder and the class hierarchy look at, gathered
  // in one walk of the trees
  const outline = SyntaxOutline.of(files);
  const entities = new EntityIndex(checker, rootDir);
  entities.build(files, setup.program, outline);
  const boundaries = new BoundaryFinder(checker, rootDir, setup.program);
  boundaries.find(files, outline);
  timings.lap("ts-entities-boundaries");

  const origins = new OriginResolver(checker);
  warm?.takeShapes(setup.program, files);
  const hierarchy = new HierarchyIndex(checker, rootDir, outline, isAppFile, warm?.structuralLinkFilter());
  warm?.noteLinks(files, hierarchy.linkingNews, hierarchy.checkedNews);
  const catalog = options.catalog ?? EMPTY_CATALOG;
  const env = {
    checker, rootDir, entities, origins, handles: new HandleTypes(checker, entities), boundaries,
    maxDepth: opts.depth, isAppFile, diagnostics, catalog,
    externalQueryCache: configuresExternalQueryCache(files),
    providers: new ProviderIndex(checker, files, isAppFile),
    busHandlers: new BusHandlerIndex(checker, files, isAppFile),
    container: new ContainerIndex(checker, files, isAppFile),
    memo: options.memo === undefined ? new WalkMemo() : options.memo,
    hierarchy,
    reach: new EffectReach(checker, origins, hierarchy, isAppFile, catalog.effects),
    reads: warm?.reads,
  };
  warm?.begin(wholeProgramFacts(env));
  for (const d of boundaries.dynamic) {
    diagnostics.push({ ir: 1, type: "diagnostic", file: relPath(rootDir, d.node.getSourceFile().fileName), line: lineOf(d.node), code: "dynamic-boundary", severity: "info", message: d.message });
  }
  const transactions: TransactionRecord[] = [];
  const seen = new Set<string>();
  const walked = options.walkFiles ? new Set(options.walkFiles) : undefined;
  for (const site of boundaries.sites) {
    if (walked && !walked.has(relPath(rootDir, site.anchor.getSourceFile().fileName))) continue;
    const walkSite = () => {
      const walk = new TransactionWalk(env, site);
      return { tx: walk.run(), diagnostics: walk.diagnostics };
    };
    const { tx, diagnostics: found } = warm ? warm.transaction(site, walkSite) : walkSite();
    if (seen.has(tx.id)) continue; // two boundaries on one line: keep the first
    seen.add(tx.id);
    transactions.push(tx);
    diagnostics.push(...found);
  }
  timings.lap("ts-walk");
  if (options.autocommit !== false) {
    // an autocommit walk follows no call into another function, so the explicit walks'
    // recordings would serve none of it: released before the call graph is built
    if (env.memo) env.memo = new WalkMemo();
    collectLargeGarbage();
    // the first unit is asked for once the call graph is built: the graph's leftovers (every
    // call of the program resolved) are collected then, and the walks' growth from there on
    let graphBuilt = false;
    const growth = new HeapGrowth();
    const unitRecords: UnitReuse = (fn, regions, walk) => {
      if (!graphBuilt) growth.collect();
      else growth.check();
      graphBuilt = true;
      return warm ? warm.unit(fn, regions, walk) : walk();
    };
    const auto = autocommitTransactions(env, files, boundaries, unitRecords);
    transactions.push(...auto.transactions);
    diagnostics.push(...auto.diagnostics);
    timings.lap("ts-autocommit");
  }
  warm?.keepSignatures();
  timings.lap("ts-warm-signatures");
  // the last walk's notes hold nodes of its file
  warm?.reads.reset();
  return { entities: entities.records(), transactions, diagnostics, program: options.keepProgram ? { program: setup.program, unresolved: setup.unresolved } : undefined };
}

/** What the walks consult that was found over the whole program (warm-cache.ts compares it):
 *  the indexes' contents as found before any walk (what they compute later, on demand, reads
 *  declarations, not function bodies). */
function wholeProgramFacts(env: WalkEnv): unknown {
  const own = (o: object) => o as unknown as Record<string, unknown>;
  const contexts = own(env.boundaries.contexts);
  return {
    entities: env.entities.records(), externalQueryCache: env.externalQueryCache,
    wrappers: env.boundaries.wrappers, startHelpers: env.boundaries.startHelpers, transactional: env.boundaries.transactional,
    runnerFactories: env.boundaries.runnerFactories,
    contexts: [contexts.starts, contexts.decorators, contexts.classes, contexts.functions],
    providers: own(env.providers).bound, busHandlers: own(env.busHandlers).handlers, container: own(env.container).registered,
    hierarchy: own(env.hierarchy).children,
  };
}

/** Heaps above this are collected in full at the turns of a scan (collectLargeGarbage); below
 *  it the peak stays far from a gigabyte, and the collections (not incremental: seconds each on
 *  a heap of 700 MB) would cost without need. */
const LARGE_HEAP_BYTES = 512 * 1024 * 1024;

/** A full collection, where a large heap has the most garbage behind it and the most growth
 *  ahead: after the program is built (the parser's and module resolution's leftovers), before
 *  the autocommit call graph (the explicit walks' memo) and after it. V8 sizes the heap it lets
 *  grow before its next full collection by what it found alive at the last one, so collecting at
 *  these points lowers the peak: on an application of 1.5 million lines, by about 80 MB. Only when
 *  node runs with --expose-gc (analyzer/typeorm/bridge.py) and the heap is large: a small
 *  program's collection would cost more than it saves. */
function collectLargeGarbage(largeBytes = LARGE_HEAP_BYTES): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || process.memoryUsage().heapUsed <= largeBytes) return undefined;
  gc();
  return process.memoryUsage().heapUsed;
}

/** The program, its checker and every index are unreachable once `analyse` returns: a large
 *  heap is collected before the output is rendered and the warm cache saved, whose text would
 *  otherwise add to the walks' peak (on an application of 1.5 million lines, about 9 MB). The
 *  collection marks only the records left (0.15-0.3 s there), unless a marking was already under
 *  way: that one ends with the program still marked live, and the heap is then collected once
 *  more. */
export function collectReleasedProgram(largeBytes = LARGE_HEAP_BYTES): void {
  const left = collectLargeGarbage(largeBytes);
  if (left !== undefined && left > largeBytes) collectLargeGarbage(largeBytes);
}

/** Growth of a large heap over what the last full collection left, allowed during the
 *  autocommit walks before the next one. The walks keep what the checker learns of every unit
 *  (on an application of 1.3 million lines, 100 MB more live by their end) and leave as much
 *  garbage; V8, left alone, lets a heap of 800 MB grow by 150 MB or more before it collects,
 *  and that growth was the scan's peak. */
const HEAP_GROWTH_BYTES = 64 * 1024 * 1024;

/** Full collections during the autocommit walks: once the large heap (collectLargeGarbage)
 *  has grown by `growthBytes` over what the last one left. One more collection (about 1.5 s)
 *  on an application of a million lines, none on a small one. */
export class HeapGrowth {
  /** heap left by the last full collection; undefined: the heap is small, nothing is checked */
  private live: number | undefined;
  private calls = 0;

  constructor(private readonly growthBytes = HEAP_GROWTH_BYTES, private readonly largeBytes = LARGE_HEAP_BYTES) {}

  /** A full collection now if the heap is large: what it leaves is what later growth is measured from. */
  collect(): void {
    this.live = collectLargeGarbage(this.largeBytes);
  }

  /** Called once per unit; the heap is looked at every 64 calls (a look costs microseconds).
   *  Whether it collected. */
  check(): boolean {
    if (this.live === undefined || ++this.calls % 64 !== 0) return false;
    if (process.memoryUsage().heapUsed <= this.live + this.growthBytes) return false;
    this.collect();
    return true;
  }
}

function metaOf(root: string): MetaRecord {
  return { ir: 1, type: "meta", frontend: "typeorm", root };
}

/** The records of an IR text (a scan reused whole). */
function recordsOf(ir: string): { transactions: TransactionRecord[]; diagnostics: DiagnosticRecord[] } {
  const records = ir.split("\n").filter((line) => line).map((line) => JSON.parse(line));
  return { transactions: records.filter((r) => r.type === "transaction"), diagnostics: records.filter((r) => r.type === "diagnostic") };
}

/** Wall time per phase, written only when TXSCAN_TS_TIMINGS_FILE names a file (scripts/benchmark.py). */
class PhaseTimer {
  private last = process.hrtime.bigint();
  private readonly seconds: Record<string, number> = {};

  lap(name: string): void {
    const now = process.hrtime.bigint();
    this.seconds[name] = (this.seconds[name] ?? 0) + Number(now - this.last) / 1e9;
    this.last = now;
  }

  writeIfAsked(): void {
    const target = process.env.TXSCAN_TS_TIMINGS_FILE;
    if (target) fs.writeFileSync(target, JSON.stringify(this.seconds));
  }
}
