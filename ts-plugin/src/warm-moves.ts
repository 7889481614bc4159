// Kept records moved to today's lines (warm-cache.ts).
//
// Lines are part of the IR, so a one-line edit used to make every transaction below it be
// walked again. When the shapes are the same (warm-shape.ts), each file is cut by its anchors
// into spans whose text is the same as then, except the bodies of changed units and the
// trivia between statements and members (no location lies inside those). A kept location
// moves with the span holding it; one that lies in a changed unit, or on a line whose spans
// moved by different amounts, cannot be moved (`Unmovable`): its transaction is walked again.
// Locations are the `file` and `line` (`end_line`) of records, transaction ids
// (`file:line`, `file:line:column:autocommit`) and the `@line` of anonymous functions in
// qualified names (names.ts: a qualified name starts with its file's module path).
import { FileShape } from "./warm-shape";

export class Unmovable extends Error {}

interface Placed {
  content: string;
  shape?: FileShape;
}

interface Span {
  /** old and new [line, column] of its start and end */
  from: [number, number];
  to: [number, number];
  nowFrom: [number, number];
  nowTo: [number, number];
  /** the same text now as then (false: a changed unit; trivia and gaps are left out) */
  same: boolean;
}

const NO_TEXT = new Set(["ES", "AB"]);

/** The spans of one file whose positions changed (undefined when they cannot be named). */
function spansOf(then: FileShape, now: FileShape): Span[] | undefined {
  if (then.shape !== now.shape || then.kinds !== now.kinds || then.anchors.length !== now.anchors.length) return undefined;
  const spans: Span[] = [];
  let unit = -1;
  const at = (a: number[], i: number): [number, number] => [a[2 * i], a[2 * i + 1]];
  for (let i = 0; i + 1 < then.kinds.length; i++) {
    if (then.kinds[i] === "O") unit++;
    const pair = then.kinds[i] + then.kinds[i + 1];
    if (NO_TEXT.has(pair)) continue;
    const same = pair !== "OC" || then.units[unit] === now.units[unit];
    spans.push({ from: at(then.anchors, i), to: at(then.anchors, i + 1), nowFrom: at(now.anchors, i), nowTo: at(now.anchors, i + 1), same });
  }
  return spans;
}

function before(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
}

/** What follows `file:` in a record's id: its own line ("own": a transaction's `file:line`),
 *  an autocommit site's line and column, or undefined (a form that cannot be moved). */
function idForm(rest: string, line: number): "own" | [number, number] | undefined {
  const own = /^(\d+)$/.exec(rest);
  if (own && Number(own[1]) === line) return "own";
  const site = /^(\d+):(\d+):autocommit$/.exec(rest);
  return site ? [Number(site[1]), Number(site[2])] : undefined;
}

export class Moves {
  private readonly spans = new Map<string, Span[] | undefined>();
  private readonly modules = new Map<string, string[]>();
  /** module paths of the files whose positions changed */
  private readonly movedModules: string[] = [];

  /** `then` and `now`: per file of the project, its content's digest and its shape. */
  constructor(then: Record<string, Placed>, now: Record<string, Placed>) {
    for (const [rel, entry] of Object.entries(now)) {
      const old = then[rel];
      if (old && old.content === entry.content) continue;
      this.spans.set(rel, old?.shape && entry.shape ? spansOf(old.shape, entry.shape) : undefined);
    }
    for (const rel of Object.keys(now)) {
      const module = rel.replace(/\.(d\.)?(ts|tsx|mts|cts)$/, "").replace(/\//g, ".");
      this.modules.set(module, [...(this.modules.get(module) ?? []), rel]);
      if (this.spans.has(rel)) this.movedModules.push(`${module}.`);
    }
  }

  get none(): boolean {
    return this.spans.size === 0;
  }

  /** Today's line of a line of `file` then. */
  line(file: string, line: number): number {
    if (!this.spans.has(file)) return line;
    const spans = this.spans.get(file);
    if (!spans) throw new Unmovable(file);
    const zero = line - 1;
    let delta: number | undefined;
    for (const s of spans) {
      if (s.from[0] > zero || s.to[0] < zero) continue;
      if (!s.same) throw new Unmovable(`${file}:${line}`);
      const d = s.nowFrom[0] - s.from[0];
      if (s.nowTo[0] - s.to[0] !== d || (delta !== undefined && delta !== d)) throw new Unmovable(`${file}:${line}`);
      delta = d;
    }
    if (delta === undefined) throw new Unmovable(`${file}:${line}`);
    return line + delta;
  }

  /** Today's [line, column] (1-based) of a position of `file` then. */
  position(file: string, line: number, column: number): [number, number] {
    if (!this.spans.has(file)) return [line, column];
    const spans = this.spans.get(file);
    if (!spans) throw new Unmovable(file);
    const at: [number, number] = [line - 1, column - 1];
    let found: string | undefined;
    for (const s of spans) {
      if (!before(s.from, at) || !before(at, s.to)) continue;
      const inside = !(at[0] === s.from[0] && at[1] === s.from[1]) && !(at[0] === s.to[0] && at[1] === s.to[1]);
      if (!s.same) {
        if (inside) throw new Unmovable(`${file}:${line}:${column}`);
        continue;
      }
      const now = at[0] === s.from[0] ? [s.nowFrom[0], at[1] - s.from[1] + s.nowFrom[1]] : [at[0] + s.nowFrom[0] - s.from[0], at[1]];
      const key = `${now[0] + 1}:${now[1] + 1}`;
      if (found !== undefined && found !== key) throw new Unmovable(`${file}:${line}:${column}`);
      found = key;
    }
    if (found === undefined) throw new Unmovable(`${file}:${line}:${column}`);
    const [l, c] = found.split(":").map(Number);
    return [l, c];
  }

  /** A copy of a kept JSON value with every location moved to today's (the value itself when
   *  it names no location of a file whose positions changed: most kept records, whose copy
   *  was most of the time spent moving them). */
  moved<T>(value: T): T {
    if (this.none || !this.touches(value)) return value;
    return this.copy(value) as T;
  }

  /** Whether `copy` could change the value or refuse it: a record of a file whose positions
   *  changed, or a name that may hold such a file's module path with a line. */
  private touches(value: unknown): boolean {
    if (typeof value === "string") return /@\d/.test(value) && this.movedModules.some((m) => value.includes(m));
    if (value === null || typeof value !== "object") return false;
    if (Array.isArray(value)) return value.some((v) => this.touches(v));
    const record = value as Record<string, unknown>;
    if (typeof record.file === "string" && typeof record.line === "number") {
      if (this.spans.has(record.file)) return true;
      // an id of the record's file in neither known form is refused by copy wherever it is
      const id = record.id;
      if (typeof id === "string" && id.startsWith(`${record.file}:`) && idForm(id.slice(record.file.length + 1), record.line) === undefined) return true;
    }
    for (const v of Object.values(record)) if (this.touches(v)) return true;
    return false;
  }

  private copy(value: unknown): unknown {
    if (typeof value === "string") return this.name(value);
    if (Array.isArray(value)) return value.map((v) => this.copy(v));
    if (value === null || typeof value !== "object") return value;
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) out[k] = this.copy(v);
    const file = record.file;
    if (typeof file === "string" && typeof record.line === "number") {
      out.line = this.line(file, record.line);
      if (typeof record.end_line === "number") out.end_line = this.line(file, record.end_line);
      const id = record.id;
      if (typeof id === "string" && id.startsWith(`${file}:`)) {
        const form = idForm(id.slice(file.length + 1), record.line);
        if (form === "own") out.id = `${file}:${out.line}`;
        else if (form) {
          const [l, c] = this.position(file, form[0], form[1]);
          out.id = `${file}:${l}:${c}:autocommit`;
        } else throw new Unmovable(id);
      }
    }
    return out;
  }

  /** A text naming anonymous functions by line (`<module>.Class.run.then@12`), moved. A
   *  qualified name holds its file's module path: a text holding none of the moved files' is
   *  as it was. */
  private name(text: string): string {
    if (!/@\d/.test(text) || !this.movedModules.some((m) => text.includes(m))) return text;
    if (/['"`/]/.test(text)) throw new Unmovable(text);
    const files: string[] = [];
    for (const [module, rels] of this.modules) if (text.startsWith(`${module}.`)) files.push(...rels);
    if (!files.length) throw new Unmovable(text);
    return text.replace(/@(\d+)/g, (_m, digits: string) => {
      const lines = new Set(files.map((rel) => this.line(rel, Number(digits))));
      if (lines.size !== 1) throw new Unmovable(text);
      return `@${[...lines][0]}`;
    });
  }
}
