// Abstract values of the data-flow walk. A value records where it comes from (sources, as in
// the IR), plus what the walker needs to recognise statements: ORM handles (manager,
// repository, query runner, query builder), entity objects (new or loaded by a step),
// object/array literal shapes (where objects built in variables), FindOperator calls and
// closures.
import * as ts from "typescript";
import { Predicate, Source } from "./ir";

export type HandleKind = "manager" | "datasource" | "repo" | "runner";

export interface Handle {
  kind: HandleKind;
  /** entity name for repositories (null when unknown) */
  entity?: string | null;
  /** bound to the transaction being walked (its manager, its runner, a repo derived from it) */
  tx: boolean;
  /** ActiveRecord static handle (`User.find`) */
  activeRecord?: boolean;
  /** text of the handle expression, for messages */
  text: string;
  /** custom repository class declaration (methods are walked with `this` = this handle) */
  customClass?: ts.ClassLikeDeclaration;
}

export interface QueryBuilderState {
  kind: "select" | "insert" | "update" | "delete" | "soft-delete" | "restore" | "relation";
  entity: string | null;
  alias: string | null;
  /** alias -> entity name, or relation path for joins (`u.orders` -> {relation: "orders"}) */
  joins: Map<string, { entity: string | null; relation: string | null }>;
  predicate: Predicate | null;
  dynamic: boolean;
  params: Map<string, Value>;
  lock: boolean;
  values: Value | null;
  handle: Handle;
  /** steps whose results were used while building (subqueries, ids) */
  uses: Set<string>;
  relationOf?: Value;
  relationProperty?: string;
  sqlParts: string[];
}

export interface EntityObject {
  entity: string | null;
  /** new: created in the transaction; loaded: result of `step`; input: came from outside */
  origin: "new" | "loaded" | "input" | "unknown";
  step?: string;
  /** the insert statement that gave this object its generated key */
  insertStep?: string;
  /** a row fetched by primary-key equality has that key: its sources */
  key?: Source[];
  /** attributes assigned in the transaction */
  fields: Map<string, Value>;
  many?: boolean;
  name?: string;
}

export interface FindOp {
  name: string;
  args: Value[];
}

export interface Closure {
  fn: ts.FunctionLikeDeclaration;
  frame: unknown; // the frame that created it (walker.Frame)
}

export interface Value {
  sources: Source[];
  handle?: Handle;
  qb?: QueryBuilderState;
  obj?: EntityObject;
  props?: Map<string, Value>;
  items?: Value[];
  elems?: Value;
  /** object has members we cannot see (spread of an unknown value, computed keys) */
  opaque?: boolean;
  findOp?: FindOp;
  closure?: Closure;
  /** result of repository.insert(): its identifiers are generated keys of `insertStep` */
  insertResult?: string;
  /** a service obtained with `withTransaction(manager)`: its repositories are the transaction's */
  txService?: boolean;
  /** an instance of this application class (a service resolved from a container by name) */
  instanceOf?: ts.ClassLikeDeclaration;
  /** a service resolved from a container by a name txscan could not bind to a class */
  unresolvedService?: string;
  /** raw SQL expression (`() => "balance - 1"` in update values) */
  sqlExpression?: boolean;
  /** a string that could be read statically */
  text?: string;
  isThis?: boolean;
  /** an entity class used as a value (a target handed to a helper): its entity name */
  entityClass?: string;
  /** the function's resolve callback inside `new Promise((resolve) => ...)` */
  promiseResolve?: boolean;
  /** a promise that settles after a timer (`new Promise(r => setTimeout(r, ms))`,
   *  timers/promises): a sleep only where the transaction awaits it */
  timer?: PendingTimer;
  /** a primitive known at this point of the walk (literals, literal arguments and defaults of
   *  the call being inlined, members absent from an exact object literal): branch conditions
   *  over such values are folded */
  lit?: { v: string | number | boolean | null | undefined };
  /** an object literal whose members are all known (`{}` default of an options parameter):
   *  a member it does not have is `undefined` */
  exact?: boolean;
}

export interface PendingTimer {
  at: ts.Node;
  callee: string;
  via: string[];
}

export const UNKNOWN: Value = { sources: [{ kind: "unknown" }] };
export const CONSTANT: Value = { sources: [{ kind: "constant" }] };

export function constant(text?: string): Value {
  return text === undefined ? { sources: [{ kind: "constant" }] } : { sources: [{ kind: "constant" }], text };
}
/** A constant whose value is known (see `Value.lit`). */
export function known(v: string | number | boolean | null | undefined, text?: string): Value {
  const out = constant(text);
  out.lit = { v };
  return out;
}

/** Whether a value is known truthy/falsy (undefined when not known). */
export function truthOf(v: Value): boolean | undefined {
  if (v.lit) return !!v.lit.v;
  if (v.exact || v.closure) return true;
  return undefined;
}

/** Whether a value is known nullish (undefined when not known). */
export function nullishOf(v: Value): boolean | undefined {
  if (v.lit) return v.lit.v === null || v.lit.v === undefined;
  if (v.exact || v.closure) return false;
  return undefined;
}

/** The value without its known constant (for values that may differ at run time). */
export function unfolded(v: Value): Value {
  if (!v.lit && !v.exact) return v;
  const out = { ...v };
  delete out.lit;
  delete out.exact;
  return out;
}

export function input(name: string): Value {
  return { sources: [{ kind: "input", name }] };
}
export function result(step: string): Value {
  return { sources: [{ kind: "result", step }] };
}

const KIND_ORDER = ["input", "constant", "result", "generated", "expression", "external", "unknown"];
const KIND_RANK = new Map(KIND_ORDER.map((k, i) => [k, i]));

function sourceKey(s: Source): string {
  return `${KIND_RANK.get(s.kind) ?? -1}|${s.step ? s.step.padStart(6, "0") : ""}|${s.name ?? ""}`;
}

/** A source with its `kind`, `name` and `step` only (an IR source, nothing else). */
function plainSource(s: Source): Source {
  const c: Source = { kind: s.kind };
  if (s.name !== undefined) c.name = s.name;
  if (s.step !== undefined) c.step = s.step;
  return c;
}

/** Up to this many sources are deduplicated by a scan of the keys so far, not a Map. */
const FEW_SOURCES = 16;

/** Deduplicated, deterministically ordered sources. A `constant` next to real sources adds
 *  nothing and is dropped; `unknown` likewise when something better is known. The walk calls
 *  this at nearly every node, mostly with a few sources: those are ordered in place. */
export function normSources(list: Source[]): Source[] {
  const n = list.length;
  if (n === 1) return [plainSource(list[0])];
  if (n === 0) return [];
  let keys: string[];
  let out: Source[];
  if (n <= FEW_SOURCES) {
    keys = [];
    out = [];
    for (let i = 0; i < n; i++) {
      const c = plainSource(list[i]);
      const k = sourceKey(c);
      const at = keys.indexOf(k);
      if (at >= 0) out[at] = c; // the same key: the last one kept, as a Map would
      else {
        keys.push(k);
        out.push(c);
      }
    }
  } else {
    const map = new Map<string, Source>();
    for (const s of list) {
      const c = plainSource(s);
      map.set(sourceKey(c), c);
    }
    out = [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    keys = [];
  }
  // insertion sort by key (the keys are distinct; a few of them)
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    const c = out[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      out[j + 1] = out[j];
      j--;
    }
    keys[j + 1] = k;
    out[j + 1] = c;
  }
  if (out.length > 1) out = dropKind(out, "constant");
  if (out.length > 1) out = dropKind(out, "unknown");
  return out;
}

function dropKind(list: Source[], kind: string): Source[] {
  let i = 0;
  while (i < list.length && list[i].kind !== kind) i++;
  if (i === list.length) return list;
  return list.filter((s) => s.kind !== kind);
}

/** Every source reachable in a value (including the fields of objects and array items). */
export function allSources(v: Value | undefined, depth = 0): Source[] {
  const out: Source[] = [];
  if (v) collectSources(v, depth, out);
  return out;
}

function collectSources(v: Value, depth: number, out: Source[]): void {
  for (const s of v.sources) out.push(s);
  if (depth > 4) return;
  if (v.props) for (const p of v.props.values()) collectSources(p, depth + 1, out);
  if (v.items) for (const i of v.items) collectSources(i, depth + 1, out);
  if (v.elems) collectSources(v.elems, depth + 1, out);
  if (v.findOp) for (const a of v.findOp.args) collectSources(a, depth + 1, out);
  if (v.obj) {
    if (v.obj.step) out.push({ kind: "result", step: v.obj.step });
    if (v.obj.insertStep) out.push({ kind: "generated", step: v.obj.insertStep });
    for (const f of v.obj.fields.values()) collectSources(f, depth + 1, out);
  }
}

/** Join of values (both arms of a branch, operands of an operator). */
export function union(...vals: (Value | undefined)[]): Value {
  const present: Value[] = [];
  const sources: Source[] = [];
  let shaped: Value[] | undefined;
  for (const v of vals) {
    if (!v) continue;
    present.push(v);
    for (const s of v.sources) sources.push(s);
    if (v.props) (shaped ??= []).push(v);
  }
  if (present.length === 0) return { sources: [{ kind: "unknown" }] };
  if (present.length === 1) return present[0];
  const out: Value = { sources: normSources(sources) };
  if (shaped) {
    const props = new Map<string, Value>();
    for (const v of shaped) for (const [k, pv] of v.props!) props.set(k, props.has(k) ? union(props.get(k), pv) : pv);
    out.props = props;
    out.opaque = shaped.some((v) => v.opaque);
  }
  for (const v of present) {
    out.handle ??= v.handle;
    out.qb ??= v.qb;
    out.obj ??= v.obj;
    out.closure ??= v.closure;
    out.insertResult ??= v.insertResult;
    out.txService ||= v.txService;
    out.instanceOf ??= v.instanceOf;
    out.timer ??= v.timer;
  }
  return out;
}

/** The sources a step depends on: step ids of result/generated/external sources. */
export function stepIds(sources: Source[]): string[] {
  const ids = new Set<string>();
  for (const s of sources) if (s.step && (s.kind === "result" || s.kind === "generated" || s.kind === "external")) ids.add(s.step);
  return [...ids].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

export function derive(v: Value): Value {
  return { sources: v.sources };
}
