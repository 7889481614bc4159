// The IR records this front end writes (docs/IR.md, analyzer/ir/schema.json), and the one
// serialiser that makes the output byte-identical across runs: keys sorted at every level,
// records in the documented order.

export type SourceKind = "input" | "constant" | "result" | "generated" | "expression" | "external" | "unknown";
export interface Source {
  kind: SourceKind;
  name?: string;
  step?: string;
}

export type Op = "eq" | "in" | "range" | "pattern" | "null" | "ne" | "other";
export interface Term {
  attribute: string;
  lookup: string;
  op: Op;
  sources: Source[];
}
export interface Connective {
  bool: "and" | "or" | "not";
  args: Predicate[];
}
export type Predicate = Term | Connective;

export type StatementKind = "read" | "write" | "insert" | "delete" | "lock" | "raw";

interface StepBase {
  file: string;
  line: number;
  via: string[];
}
export interface StatementStep extends StepBase {
  node: "statement";
  id: string;
  entity: string | null;
  kind: StatementKind;
  api: string;
  predicate: Predicate | null;
  dynamic: boolean;
  values: { attribute: string; sources: Source[] }[];
  uses: string[];
  sql?: string;
}
export interface EffectStep extends StepBase {
  node: "effect";
  id: string;
  category: string;
  callee: string;
  uses: string[];
}
export interface UnresolvedStep extends StepBase {
  node: "unresolved";
  callee: string;
  reason: string;
  /** more about the reason (`12 candidates`) */
  detail?: string;
}
export interface BranchStep extends StepBase {
  node: "branch";
  uses: Source[];
  arms: Step[][];
}
export interface LoopStep extends StepBase {
  node: "loop";
  uses: Source[];
  body: Step[];
}
export type Step = StatementStep | EffectStep | UnresolvedStep | BranchStep | LoopStep;

/** `autocommit`: one ORM call outside any explicit transaction (TAXONOMY.md), its own
 *  single-statement transaction. */
export type Boundary = "transaction-callback" | "query-runner" | "transaction-decorator" | "transactional-decorator" | "autocommit";

export interface TransactionRecord {
  ir: 1;
  type: "transaction";
  id: string;
  file: string;
  line: number;
  end_line: number;
  function: string;
  boundary: Boundary;
  wrapper: string | null;
  options: Record<string, string>;
  steps: Step[];
}

export interface Relation {
  attribute: string;
  kind: "fk" | "o2o" | "m2m";
  target: string | null;
  reverse: string | null;
}
export interface EntityRecord {
  ir: 1;
  type: "entity";
  name: string;
  qualname: string;
  table: string | null;
  file: string;
  line: number;
  pk: string[];
  unique: string[][];
  fields: string[];
  relations: Relation[];
  abstract: boolean;
}

export type Severity = "error" | "warning" | "info";
export interface DiagnosticRecord {
  ir: 1;
  type: "diagnostic";
  file: string;
  line: number;
  code: string;
  severity: Severity;
  message: string;
}

export interface MetaRecord {
  ir: 1;
  type: "meta";
  frontend: "typeorm";
  root: string;
}

/** JSON with keys sorted at every level (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  indexLikeKey = false;
  const text = JSON.stringify(value, sortedKeys);
  return indexLikeKey ? writeSorted(value) : text;
}

/** Set when sortedKeys met a key that looks like an array index: JavaScript lists such keys
 *  first, in numeric order, whatever the insertion order, so a copy cannot hold them sorted. */
let indexLikeKey = false;
const INDEX_LIKE = /^(0|[1-9][0-9]*)$/;

/** JSON.stringify's replacer: each object as a copy with its keys in sorted order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (INDEX_LIKE.test(k)) indexLikeKey = true;
    out[k] = obj[k];
  }
  return out;
}

/** The canonical form written piece by piece, as JSON.stringify would with sorted keys
 *  (undefined and function members left out of objects, null in arrays). */
function writeSorted(value: unknown): string {
  if (typeof value === "function") return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return "[" + value.map(writeSorted).join(",") + "]";
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && typeof obj[k] !== "function").sort();
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + writeSorted(obj[k])).join(",") + "}";
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** All records of one scan in the documented order, one JSON object per line. */
export function renderIr(
  meta: MetaRecord,
  entities: EntityRecord[],
  transactions: TransactionRecord[],
  diagnostics: DiagnosticRecord[],
): string {
  const ents = [...entities].sort((a, b) => cmp(a.name, b.name) || cmp(a.file, b.file) || cmp(a.line, b.line));
  // explicit transactions first, then autocommit ones (analyzer/ir sort_key)
  const autocommit = (t: TransactionRecord) => (t.boundary === "autocommit" ? 1 : 0);
  const txs = [...transactions].sort((a, b) => autocommit(a) - autocommit(b) || cmp(a.file, b.file) || cmp(a.line, b.line) || cmp(a.function, b.function) || cmp(a.id, b.id));
  const seen = new Set<string>();
  const diags: DiagnosticRecord[] = [];
  for (const d of [...diagnostics].sort(
    (a, b) => cmp(a.file, b.file) || cmp(a.line, b.line) || cmp(a.code, b.code) || cmp(a.message, b.message),
  )) {
    const key = canonicalJson(d);
    if (seen.has(key)) continue;
    seen.add(key);
    diags.push(d);
  }
  const lines = [meta, ...ents, ...txs, ...diags].map(canonicalJson);
  return lines.join("\n") + "\n";
}
