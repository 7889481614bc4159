// Memoised helper walks. Inside one transaction a helper is often called many times in the same
// context (the same arguments, receiver and walk state): `this.getActiveOrder(ctx)` at each
// step of a checkout. The walk of such a call is recorded once (the steps it emitted, its
// result, its diagnostics) and replayed at the next call in the same context with fresh step
// ids and the caller's call chain, which gives exactly what walking it again would give.
// A recording is kept only when the walk depended on nothing but its context: it must not have
// changed its arguments or receiver, the transaction's state (started, ended, runners), nor met
// a cut-off that depends on where it was called from (the depth limit, recursion into a caller,
// the node budget).
// Step ids in a context are compared by their order, not their numbers: a helper given the row
// of step s10 walks as it does given the row of step s14 (the ids it emits are those of its
// context, renamed in the same order, and its own, shifted), so one recording serves both.
import * as ts from "typescript";
import { DiagnosticRecord, Step } from "./ir";
import { Value } from "./values";

/** Contexts whose text would be longer than this are not compared (not worth it). The length
 *  is that of a text naming each piece (strings as JSON, compiler objects as `#id`) with
 *  spaces between: the fingerprint is a list of numbers, the limit is measured as text. */
const MAX_KEY_CHARS = 50_000;
/** A walk state holding more step ids than this is not compared (about the size limit's). */
const MAX_STATE_IDS = 5_000;

/** A node, symbol or type: compared by identity. */
function isCompilerObject(o: object): boolean {
  const r = o as Record<string, unknown>;
  return (typeof r.kind === "number" && typeof r.pos === "number" && typeof r.end === "number") ||
    (typeof r.flags === "number" && "escapedName" in r) || (typeof r.flags === "number" && "checker" in r);
}

/** Where each object reachable from a call's context sits in it (key paths), to give a replayed
 *  result the objects of the new call where the recorded one returned objects of its context. */
type Paths = Map<object, (string | number)[]>;

// Structural tokens of a fingerprint; every other token is an interned string, number or
// other primitive (positive, from 16 up) or a compiler object (negative).
const OPEN_ARRAY = 1, CLOSE = 2, OPEN_MAP = 3, OPEN_SET = 4, OPEN_OBJECT = 5, NULL = 6, UNDEFINED = 7, TRUE = 8, FALSE = 9, FUNCTION = 10, COLON = 11, STEP_ID = 12;
const FIRST_INTERNED = 16;
/** Length of each structural token's text (`[`, `}`, `M{`, `S{`, `{`, `null`, ..., `:`). */
const TOKEN_CHARS = [0, 1, 1, 2, 2, 1, 4, 9, 4, 5, 2, 1];

/** Members holding a step id (`s12`), and those holding a collection of step ids. */
const STEP_ID_KEYS = new Set(["step", "insertStep", "insertResult", "id"]);
const STEP_IDS_KEY = "uses";
const STEP_ID_TEXT = /^s\d+$/;

/** A context's fingerprint: equal tokens and ids exactly when the contexts hold the same values
 *  (compiler objects by identity). A step id is a `STEP_ID` token, its number in `ids`. */
export interface Fingerprint {
  tokens: Int32Array;
  /** the step ids met, in order */
  ids: number[];
}

/** What a recording is found by: the walk state's and the context's fingerprints with their
 *  step ids replaced by their rank among them; `hash` is the tokens' hash (a Map key, never
 *  trusted alone). */
export interface MemoKey {
  tokens: Int32Array;
  hash: number;
  /** the distinct step ids, in increasing order (rank -> id) */
  order: number[];
}

export function memoKey(state: Fingerprint, context: Fingerprint): MemoKey {
  const n = state.ids.length + context.ids.length;
  // the state's tokens, 0, the context's, 0, then each step id's rank
  const s = state.tokens.length;
  const c = context.tokens.length;
  const tokens = new Int32Array(s + 1 + c + 1 + n);
  tokens.set(state.tokens, 0);
  tokens.set(context.tokens, s + 1);
  if (n === 0) return { tokens, hash: hashTokens(tokens), order: [] };
  const all = n === state.ids.length ? state.ids : n === context.ids.length ? context.ids : state.ids.concat(context.ids);
  // the distinct ids in increasing order; an id's rank is found by bisection (a context holds few)
  const order = Array.from(new Set(all)).sort((a, b) => a - b);
  let at = s + c + 2;
  for (const id of all) {
    let lo = 0, hi = order.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (order[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    tokens[at++] = lo;
  }
  return { tokens, hash: hashTokens(tokens), order };
}

/** The number of a step id (`s12` -> 12), NaN for any other text: `Number(id.slice(1))` where
 *  STEP_ID_TEXT matches, read without a regular expression or a copy (asked for every failing
 *  read of the transaction at every helper call). */
function stepNumber(id: string): number {
  if (id.length < 2 || id.charCodeAt(0) !== 115 /* s */) return NaN;
  if (id.length > 16) return STEP_ID_TEXT.test(id) ? Number(id.slice(1)) : NaN; // past exact sums
  let n = 0;
  for (let i = 1; i < id.length; i++) {
    const c = id.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/**
 * The failing reads (step ids of reads that throw when they find nothing) a helper's walk can
 * depend on: those among its context's step ids, in increasing order, once each. A walk asks
 * only whether a step id it meets is already one (an `if (!row) throw` on a row adds it unless
 * it is), and the ids it meets are its context's or its own (newer than any failing read); a
 * recording that holds another earlier id is not kept (replay's `foreign`). The other failing
 * reads of the transaction cannot change the walk.
 */
export function failingInContext(failingReads: readonly string[], contextIds: readonly number[]): string[] {
  if (failingReads.length === 0 || contextIds.length === 0) return [];
  const ids = new Set(contextIds);
  const found = new Set<number>();
  for (const id of failingReads) {
    const n = stepNumber(id);
    if (ids.has(n)) found.add(n);
  }
  return Array.from(found).sort((a, b) => a - b).map((n) => `s${n}`);
}

export function samePrint(a: Fingerprint, b: Fingerprint): boolean {
  return sameTokens(a.tokens, b.tokens) && sameTokens(a.ids, b.ids);
}

/** How a value is read: as is, as a step id, or as a collection of step ids. */
const PLAIN = 0, ID = 1, IDS = 2;

interface Interned {
  token: number;
  /** length of its text in the measured key (a string value as JSON, a key as is) */
  chars: number;
}

/** A member name: its token, and how the member's value is read. */
interface MemberKey extends Interned {
  as: number;
}

/** No key path step (the context itself). */
const ROOT = Symbol("root");

/** Contexts are visited often (each helper call, before and after its walk): one visitor per
 *  fingerprinting object, its state in fields, no closures made per context. */
export class ContextFingerprint {
  private ids = new WeakMap<object, number>();
  private next = 0;
  // Strings and other primitives get a token each. V8 keeps a string's hash in the string,
  // so a string met again costs one Map lookup, not a JSON text copied into a joined key.
  private values = new Map<string, Interned>();
  private keys = new Map<string, MemberKey>();
  private others = new Map<unknown, Interned>();
  private nextToken = FIRST_INTERNED;

  // the context being visited: its tokens are written to `buffer` (one buffer for every
  // context, grown as needed), then copied out at their length
  private buffer = new Int32Array(1024);
  private length = 0;
  private stepIds: number[] = [];
  private build = true;
  private paths: Paths | undefined;
  private size = 0;
  /** the measured text's length so far (pieces and the spaces between them): past the limit
   *  the answer is known (undefined) and the rest of the context need not be visited */
  private chars = -1;
  /** the objects being visited, outermost first (a cycle is not comparable); short */
  private active: object[] = [];

  private idOf(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = ++this.next;
      this.ids.set(o, id);
    }
    return id;
  }

  private fresh<K>(table: Map<K, Interned>, v: K, text: string): Interned {
    const got = { token: this.nextToken++, chars: text.length };
    table.set(v, got);
    return got;
  }

  private memberKey(k: string): MemberKey {
    let got = this.keys.get(k);
    if (!got) {
      got = { token: this.nextToken++, chars: k.length, as: STEP_ID_KEYS.has(k) ? ID : k === STEP_IDS_KEY ? IDS : PLAIN };
      this.keys.set(k, got);
    }
    return got;
  }

  /** The fingerprint of a context; undefined when it holds something not comparable by
   *  content (a closure's frame, a cycle) or is too large to be worth comparing. */
  of(parts: unknown[], paths?: Paths): Fingerprint | undefined {
    return this.walk(parts, paths, true);
  }

  /**
   * The fingerprint of a walk's state, asked at every helper call: a fixed list of parts
   * (compiler objects by identity, `null`, flags, strings, counts), then the step ids it holds,
   * written directly instead of visited. Equal exactly when the parts and the ids are (a list of
   * variable length is preceded by its count). undefined past MAX_STATE_IDS ids (not worth it).
   */
  ofState(parts: readonly (object | string | number | boolean | null)[], stepIds: readonly string[]): Fingerprint | undefined {
    if (stepIds.length > MAX_STATE_IDS) return undefined;
    const tokens = new Int32Array(parts.length + stepIds.length);
    const ids: number[] = [];
    let at = 0;
    for (const p of parts) {
      if (p === null) tokens[at++] = NULL;
      else if (p === true) tokens[at++] = TRUE;
      else if (p === false) tokens[at++] = FALSE;
      else if (typeof p === "string") tokens[at++] = (this.values.get(p) ?? this.fresh(this.values, p, JSON.stringify(p))).token;
      else if (typeof p === "number") tokens[at++] = (this.others.get(p) ?? this.fresh(this.others, p, String(p))).token;
      else tokens[at++] = -this.idOf(p);
    }
    for (const id of stepIds) {
      const n = stepNumber(id);
      if (!Number.isNaN(n)) {
        tokens[at++] = STEP_ID;
        ids.push(n);
      } else tokens[at++] = (this.values.get(id) ?? this.fresh(this.values, id, JSON.stringify(id))).token;
    }
    return { tokens, ids };
  }

  /** Whether a value can be compared by content (`of` would give a fingerprint). */
  comparable(parts: unknown[]): boolean {
    return this.walk(parts, undefined, false) !== undefined;
  }

  private walk(parts: unknown[], paths: Paths | undefined, build: boolean): Fingerprint | undefined {
    const ids: number[] = [];
    this.length = 0;
    this.stepIds = ids;
    this.build = build;
    this.paths = paths;
    this.size = 0;
    this.chars = -1;
    this.active.length = 0;
    let ok: boolean;
    try {
      ok = this.visit(parts, paths ? [] : undefined, ROOT, undefined, PLAIN) && this.chars <= MAX_KEY_CHARS;
    } finally {
      this.paths = undefined;
      this.stepIds = [];
      this.active.length = 0;
    }
    return ok ? { tokens: this.buffer.slice(0, this.length), ids } : undefined;
  }

  private put(token: number, length: number): void {
    this.chars += length + 1;
    if (this.build) {
      if (this.length === this.buffer.length) {
        const wider = new Int32Array(this.buffer.length * 2);
        wider.set(this.buffer);
        this.buffer = wider;
      }
      this.buffer[this.length++] = token;
    }
  }

  /** Visits one value; false when the context is not comparable. The size limits are checked
   *  at each object (the counts only grow: a check skipped between two objects is made at the
   *  next one or at the end, with the same answer). */
  private visit(v: unknown, parent: (string | number)[] | undefined, a: string | number | typeof ROOT, b: string | number | undefined, as: number): boolean {
    ++this.size;
    if (v === null) {
      this.put(NULL, TOKEN_CHARS[NULL]);
      return true;
    }
    if (v === undefined) {
      this.put(UNDEFINED, TOKEN_CHARS[UNDEFINED]);
      return true;
    }
    if (typeof v !== "object") {
      if (typeof v === "string") {
        const n = as === ID ? stepNumber(v) : NaN;
        if (!Number.isNaN(n)) {
          if (this.build) this.stepIds.push(n);
          this.put(STEP_ID, v.length + 2);
          return true;
        }
        const s = this.values.get(v) ?? this.fresh(this.values, v, JSON.stringify(v));
        this.put(s.token, s.chars);
        return true;
      }
      if (v === true) this.put(TRUE, TOKEN_CHARS[TRUE]);
      else if (v === false) this.put(FALSE, TOKEN_CHARS[FALSE]);
      else if (typeof v === "function") this.put(FUNCTION, TOKEN_CHARS[FUNCTION]);
      else {
        const o = this.others.get(v) ?? this.fresh(this.others, v, String(v));
        this.put(o.token, o.chars);
      }
      return true;
    }
    if (this.size > MAX_KEY_CHARS || this.chars > MAX_KEY_CHARS) return false;
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== Map.prototype && proto !== Set.prototype) {
      // compiler objects are instances of the compiler's own classes
      if (!isCompilerObject(v)) return false;
      const id = this.idOf(v);
      this.put(-id, String(id).length + 1);
      return true;
    }
    const active = this.active;
    if (active.includes(v)) return false;
    // key paths are made for objects only, each object's first path kept
    let path: (string | number)[] | undefined;
    if (this.paths && parent) {
      path = a === ROOT ? parent : b === undefined ? [...parent, a] : [...parent, a, b];
      if (!this.paths.has(v)) this.paths.set(v, path);
    }
    active.push(v);
    if (Array.isArray(v)) {
      this.put(OPEN_ARRAY, TOKEN_CHARS[OPEN_ARRAY]);
      const inner = as === IDS ? ID : PLAIN;
      for (let i = 0; i < v.length; i++) if (!this.visit(v[i], path, i, undefined, inner)) return false;
    } else if (v instanceof Map) {
      this.put(OPEN_MAP, TOKEN_CHARS[OPEN_MAP]);
      for (const [k, x] of v) {
        // a key as JSON (a string key quoted)
        let s: Interned;
        if (typeof k === "string") s = this.values.get(k) ?? this.fresh(this.values, k, JSON.stringify(k));
        else {
          const text = JSON.stringify(k) ?? "";
          s = this.others.get(`json:${text}`) ?? this.fresh(this.others, `json:${text}`, text);
        }
        this.put(s.token, s.chars);
        if (!this.visit(x, path, "m", k as string | number, PLAIN)) return false;
      }
    } else if (v instanceof Set) {
      this.put(OPEN_SET, TOKEN_CHARS[OPEN_SET]);
      const inner = as === IDS ? ID : PLAIN;
      for (const x of v) if (!this.visit(x, path, "s", undefined, inner)) return false;
    } else {
      this.put(OPEN_OBJECT, TOKEN_CHARS[OPEN_OBJECT]);
      // own members only: a plain object's prototype has no enumerable ones
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        const s = this.memberKey(k);
        this.put(s.token, s.chars);
        // the `:` is measured but not written: a member's token is always followed by its value
        // (member tokens are never a value's), so the tokens stay unambiguous without it
        this.chars += TOKEN_CHARS[COLON] + 1;
        if (!this.visit(x, path, k, undefined, s.as)) return false;
      }
    }
    this.put(CLOSE, TOKEN_CHARS[CLOSE]);
    active.pop();
    return true;
  }
}

function hashTokens(tokens: Int32Array): number {
  let h = 0x811c9dc5 ^ tokens.length;
  for (let i = 0; i < tokens.length; i++) {
    h = Math.imul(h ^ tokens[i], 0x01000193);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

export function sameTokens(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
  /** the step ids of the recorded context and walk state, in increasing order */
  order: number[];
  /** reads that throw when they find nothing, added by the walk (step ids) */
  failingReads: string[];
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

/** A copy of recorded steps/values for a new call: the walk's own step ids shifted, those of
 *  its context renamed to the new context's of the same rank (`order`), call chains re-rooted
 *  at the caller's, objects of the old context replaced by those of the new one. `foreign`:
 *  the copy holds an earlier step id that is not its context's (it cannot be renamed). */
export function replay(rec: Recording, firstId: number, via: string[], context: unknown[], order: number[]): { steps: Step[]; result: Value; failingReads: string[]; foreign: boolean } {
  const shift = firstId - rec.firstId;
  const rank = new Map(rec.order.map((id, i) => [id, i]));
  let foreign = false;
  const remap = (id: string): string => {
    const n = stepNumber(id);
    if (Number.isNaN(n)) return id; // (not a step's id: `t5` or `s1e3` is never renumbered)
    if (n > rec.firstId && n <= rec.firstId + rec.idCount) return `s${n + shift}`;
    const r = rank.get(n);
    if (r === undefined) {
      foreign = true;
      return id;
    }
    return `s${order[r]}`;
  };
  const copies = new Map<object, unknown>();
  const copy = (v: unknown, key?: string): unknown => {
    if (v === null || v === undefined || typeof v !== "object") {
      if (typeof v === "string" && key !== undefined && STEP_ID_KEYS.has(key)) return remap(v);
      return v;
    }
    // compiler objects, frames and other walk objects are shared
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== Map.prototype && proto !== Set.prototype) return v;
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
      for (const x of v) out.push(key === STEP_IDS_KEY && typeof x === "string" ? remap(x) : copy(x));
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
      for (const x of v) out.add(key === STEP_IDS_KEY && typeof x === "string" ? remap(x) : copy(x));
      return out;
    }
    const out: Record<string, unknown> = {};
    copies.set(v, out);
    for (const k of Object.keys(v)) out[k] = copy((v as Record<string, unknown>)[k], k);
    return out;
  };
  const steps = rec.steps.map((s) => copy(s) as Step);
  return { steps, result: copy(rec.result) as Value, failingReads: rec.failingReads.map(remap), foreign };
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
  /** recordings by their key's hash (a key is the fingerprint of the walk state and context) */
  private readonly recordings = new Map<number, { key: Int32Array; recording: Recording }[]>();
  readonly fingerprints = new ContextFingerprint();

  /** keys met once, not recorded (by their hash) */
  private readonly met = new Map<number, Int32Array[]>();

  find(key: MemoKey): Recording | undefined {
    return this.recordings.get(key.hash)?.find((r) => sameTokens(r.key, key.tokens))?.recording;
  }

  /** Whether this key was met before (and noted now if not). Most contexts are met once: a
   *  helper is recorded only when its context comes again, which saves copying walks that are
   *  never replayed (on vendure's core 10,000 of 12,000 recordings were never used). */
  metBefore(key: MemoKey): boolean {
    const bucket = this.met.get(key.hash);
    if (!bucket) {
      this.met.set(key.hash, [key.tokens]);
      return false;
    }
    if (bucket.some((tokens) => sameTokens(tokens, key.tokens))) return true;
    bucket.push(key.tokens);
    return false;
  }

  keep(key: MemoKey, recording: Recording): void {
    const bucket = this.recordings.get(key.hash);
    if (!bucket) {
      this.recordings.set(key.hash, [{ key: key.tokens, recording }]);
      return;
    }
    const same = bucket.find((r) => sameTokens(r.key, key.tokens));
    if (same) same.recording = recording;
    else bucket.push({ key: key.tokens, recording });
  }

  get size(): number {
    let n = 0;
    for (const bucket of this.recordings.values()) n += bucket.length;
    return n;
  }
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
