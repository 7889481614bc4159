// One scan, end to end: program -> entities -> boundaries -> one walk per transaction -> IR.
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { autocommitTransactions } from "./autocommit";
import { BoundaryFinder } from "./boundaries";
import { EntityIndex } from "./entities";
import { HandleTypes } from "./handles";
import { DiagnosticRecord, renderIr, TransactionRecord } from "./ir";
import { lineOf, OriginResolver } from "./names";
import { relPath, ScanOptions, setupProgram } from "./program";
import { HierarchyIndex } from "./hierarchy";
import { EffectReach } from "./reach";
import { BusHandlerIndex, ContainerIndex, ProviderIndex } from "./providers";
import { configuresExternalQueryCache } from "./query-cache";
import { EMPTY_CATALOG, UserCatalog } from "./settings";
import { TransactionWalk } from "./walker";
import { WalkMemo } from "./walk-memo";

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
export function scan(root: string, options: Partial<Omit<ScanOptions, "root">> & { catalog?: UserCatalog; autocommit?: boolean; memo?: WalkMemo | null; walkFiles?: string[] } = {}): ScanResult {
  const opts: ScanOptions = { ...options, root, maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes, depth: options.depth ?? DEFAULTS.depth, tsconfig: options.tsconfig };
  const timings = new PhaseTimer();
  const setup = setupProgram(opts);
  timings.lap("ts-program");
  const { checker, rootDir, files } = setup;
  const diagnostics: DiagnosticRecord[] = [...setup.diagnostics];
  const appFiles = new Set(files.map((f) => path.resolve(f.fileName)));
  const isAppFile = (sf: ts.SourceFile) => appFiles.has(path.resolve(sf.fileName));

  const entities = new EntityIndex(checker, rootDir);
  entities.build(files);
  const boundaries = new BoundaryFinder(checker, rootDir, setup.program);
  boundaries.find(files);
  timings.lap("ts-entities-boundaries");

  const origins = new OriginResolver(checker);
  const hierarchy = new HierarchyIndex(checker, rootDir, files, isAppFile);
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
  };
  for (const d of boundaries.dynamic) {
    diagnostics.push({ ir: 1, type: "diagnostic", file: relPath(rootDir, d.node.getSourceFile().fileName), line: lineOf(d.node), code: "dynamic-boundary", severity: "info", message: d.message });
  }
  const transactions: TransactionRecord[] = [];
  const seen = new Set<string>();
  const walked = options.walkFiles ? new Set(options.walkFiles) : undefined;
  for (const site of boundaries.sites) {
    if (walked && !walked.has(relPath(rootDir, site.anchor.getSourceFile().fileName))) continue;
    const walk = new TransactionWalk(env, site);
    const tx = walk.run();
    if (seen.has(tx.id)) continue; // two boundaries on one line: keep the first
    seen.add(tx.id);
    transactions.push(tx);
    diagnostics.push(...walk.diagnostics);
  }
  timings.lap("ts-walk");
  if (options.autocommit !== false) {
    const auto = autocommitTransactions(env, files, boundaries);
    transactions.push(...auto.transactions);
    diagnostics.push(...auto.diagnostics);
    timings.lap("ts-autocommit");
  }
  timings.writeIfAsked();
  const meta = { ir: 1 as const, type: "meta" as const, frontend: "typeorm" as const, root };
  return { ir: renderIr(meta, entities.records(), transactions, diagnostics), transactions, diagnostics };
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
