// Memoised helper walks. Inside one transaction a helper is often called many times in the same
// context (the same arguments, receiver and walk state): `this.getActiveOrder(ctx)` at each
// step of a checkout. The walk of such a call is recorded once (the steps it emitted, its
// result, its diagnostics) and replayed at the next call in the same context with fresh step
// ids and the caller's call chain, which gives exactly what walking it again would give.
// A recording is kept only when the walk depended on nothing but its context: it must not have
// changed its arguments or receiver, the transaction's state (started, ended, runners), nor met
// a cut-off that depends on where it was called from (the depth limit, recursion into a caller,
// the node budget).
import * as ts from "typescript";
import { DiagnosticRecord, Step } from "./ir";
import { Value } from "./values";

/** Thrown while fingerprinting a context that cannot be compared by content (not an Error:
 *  it is thrown often, and an Error records the stack each time). */
const NOT_COMPARABLE = { notComparable: true };

const MAX_KEY_CHARS = 50_000;

/** A node, symbol or type: compared by identity. */
function isCompilerObject(o: object): boolean {
  const r = o as Record<string, unknown>;
  return (typeof r.kind === "number" && typeof r.pos === "number" && typeof r.end === "number") ||
    (typeof r.flags === "number" && "escapedName" in r) || (typeof r.flags === "number" && "checker" in r);
}

/** Where each object reachable from a call's context sits in it (key paths), to give a replayed
 *  result the objects of the new call where the recorded one returned objects of its context. */
type Paths = Map<object, (string | number)[]>;

export class ContextFingerprint {
  private ids = new WeakMap<object, number>();
  private next = 0;

  private idOf(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = ++this.next;
      this.ids.set(o, id);
    }
    return id;
  }

  /** Text equal for two contexts exactly when they hold the same values (compiler objects by
   *  identity); undefined when the context holds something not comparable by content
   *  (a closure's frame, a cycle) or is too large to be worth comparing. */
  of(parts: unknown[], paths?: Paths): string | undefined {
    const out: string[] = [];
    let size = 0;
    // the text's length so far (pieces and the spaces between them): past the limit the answer
    // is known (undefined) and the rest of the context need not be visited
    let chars = -1;
    const put = (piece: string): void => {
      chars += piece.length + 1;
      if (chars > MAX_KEY_CHARS) throw NOT_COMPARABLE;
      out.push(piece);
    };
    const active = new Set<object>();
    const visit = (v: unknown, path: (string | number)[] | undefined): void => {
      if (++size > MAX_KEY_CHARS) throw NOT_COMPARABLE;
      if (v === null || v === undefined || typeof v !== "object") {
        put(typeof v === "string" ? JSON.stringify(v) : typeof v === "function" ? "fn" : String(v));
        return;
      }
      if (isCompilerObject(v)) {
        put(`#${this.idOf(v)}`);
        return;
      }
      if (active.has(v)) throw NOT_COMPARABLE;
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== Array.prototype && proto !== Map.prototype && proto !== Set.prototype) throw NOT_COMPARABLE;
      if (paths && path && !paths.has(v)) paths.set(v, path);
      active.add(v);
      if (Array.isArray(v)) {
        put("[");
        for (let i = 0; i < v.length; i++) visit(v[i], path && [...path, i]);
        put("]");
      } else if (v instanceof Map) {
        put("M{");
        for (const [k, x] of v) {
          put(JSON.stringify(k) ?? "");
          visit(x, path && [...path, "m", k]);
        }
        put("}");
      } else if (v instanceof Set) {
        put("S{");
        for (const x of v) visit(x, path && [...path, "s"]);
        put("}");
      } else {
        put("{");
        for (const k of Object.keys(v)) {
          const x = (v as Record<string, unknown>)[k];
          if (x === undefined) continue;
          put(k);
          put(":");
          visit(x, path && [...path, k]);
        }
        put("}");
      }
      active.delete(v);
    };
    try {
      visit(parts, paths ? [] : undefined);
    } catch (e) {
      if (e === NOT_COMPARABLE) return undefined;
      throw e;
    }
    return out.join(" ");
  }
}

export interface Recording {
  /** steps emitted, with ids and call chains as recorded */
  steps: Step[];
  result: Value;
  diagnostics: DiagnosticRecord[];
  /** step ids above this one were created by the recorded walk */
  firstId: number;
  idCount: number;
  nodes: number;
  /** length of the caller's call chain at recording (the rest of each `via` is the walk's own) */
  viaBase: number;
  /** objects of the recorded context, by path */
  paths: Paths;
  /** functions the recorded walk entered (warm-reads.ts), added again at each replay */
  reads?: ts.Node[];
}

/** Follow a key path in a context (the same shape as the recorded one: equal fingerprints). */
function at(root: unknown, path: (string | number)[]): unknown {
  let cur: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const k = path[i];
    if (k === "m") cur = (cur as Map<unknown, unknown>).get(path[++i]);
    else if (k === "s") return undefined; // a member of a set has no stable path
    else cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** A copy of recorded steps/values for a new call: step ids shifted, call chains re-rooted at
 *  the caller's, objects of the old context replaced by those of the new one. */
export function replay(rec: Recording, firstId: number, via: string[], context: unknown[]): { steps: Step[]; result: Value } {
  const shift = firstId - rec.firstId;
  const remap = (id: string): string => {
    const n = Number(id.slice(1));
    return n > rec.firstId && n <= rec.firstId + rec.idCount ? `s${n + shift}` : id;
  };
  const copies = new Map<object, unknown>();
  const copy = (v: unknown, key?: string): unknown => {
    if (v === null || v === undefined || typeof v !== "object") {
      if (typeof v === "string" && (key === "step" || key === "insertStep" || key === "id")) return remap(v);
      return v;
    }
    if (isCompilerObject(v)) return v;
    const mine = rec.paths.get(v);
    if (mine) {
      const now = at(context, mine);
      if (now !== undefined) return now;
    }
    const done = copies.get(v);
    if (done) return done;
    if (Array.isArray(v)) {
      if (key === "via") return [...via, ...(v as string[]).slice(rec.viaBase)];
      const out: unknown[] = [];
      copies.set(v, out);
      for (const x of v) out.push(key === "uses" && typeof x === "string" ? remap(x) : copy(x));
      return out;
    }
    if (v instanceof Map) {
      const out = new Map();
      copies.set(v, out);
      for (const [k, x] of v) out.set(k, copy(x));
      return out;
    }
    if (v instanceof Set) {
      const out = new Set();
      copies.set(v, out);
      for (const x of v) out.add(key === "uses" && typeof x === "string" ? remap(x) : copy(x));
      return out;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype) return v; // frames and other walk objects are shared
    const out: Record<string, unknown> = {};
    copies.set(v, out);
    for (const k of Object.keys(v)) out[k] = copy((v as Record<string, unknown>)[k], k);
    return out;
  };
  return { steps: rec.steps.map((s) => copy(s) as Step), result: copy(rec.result) as Value };
}

/** Do all recorded steps (nested ones too) hang below the caller's call chain? */
export function underChain(steps: Step[], via: string[]): boolean {
  const ok = (s: Step): boolean => {
    if (s.via.length < via.length || via.some((x, i) => s.via[i] !== x)) return false;
    if (s.node === "branch") return s.arms.every((a) => a.every(ok));
    if (s.node === "loop") return s.body.every(ok);
    return true;
  };
  return steps.every(ok);
}

/** Recordings shared by the walks of one scan: a helper called in the same context by two
 *  transactions walks the same way (the key holds the walk mode and state). */
export class WalkMemo {
  readonly recordings = new Map<string, Recording>();
  readonly fingerprints = new ContextFingerprint();
  /** calls answered from a recording (for tests and profiling) */
  replays = 0;
}

/** A walk being recorded: cut-offs met while it runs make it depend on its caller. */
export interface OpenRecording {
  /** length of the call stack below the recorded function */
  stackBase: number;
  tainted: boolean;
}

export function taintAll(open: OpenRecording[]): void {
  for (const o of open) o.tainted = true;
}

/** Recursion into the function at `index` of the call stack: recordings opened above it depend
 *  on that caller. */
export function taintAbove(open: OpenRecording[], index: number): void {
  for (const o of open) if (o.stackBase > index) o.tainted = true;
}

