// Settings passed by the caller as one JSON object (`--settings '<json>'`; the Python side
// builds it from `[tool.txscan]`). Members this front end does not know are ignored, so the
// object can grow without breaking older builds. Known members:
//   effects:    { "<callee>": "<category>" }  extra external effects
//   statements: { "<callee>": "<kind>" }      extra database calls (read/write/insert/delete/lock/raw)
// A callee is either a library call as txscan names it in effect steps (`module`,
// `module.method`, `module.Export.method`: a prefix matches every call below it) or a function
// of the application by its qualified name (`src.mail.Mailer.send`, as in `via`): such a
// function is not walked, its call is the effect or statement.
import { StatementKind } from "./ir";

export interface UserCatalog {
  effects: ReadonlyMap<string, string>;
  statements: ReadonlyMap<string, StatementKind>;
}

export const EMPTY_CATALOG: UserCatalog = { effects: new Map(), statements: new Map() };

const KINDS: ReadonlySet<string> = new Set(["read", "write", "insert", "delete", "lock", "raw"]);

/** Parses the settings text; throws an Error with a one-line reason when it is not valid. */
export function parseSettings(text: string): UserCatalog {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`--settings is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(data)) throw new Error("--settings must be a JSON object");
  return catalogOf(data);
}

/** The user catalog of a parsed settings object; throws an Error with a one-line reason. */
export function catalogOf(data: Record<string, unknown>): UserCatalog {
  return {
    effects: table(data.effects, "effects", (v) => typeof v === "string" && v.length > 0, "a category name"),
    statements: table(data.statements, "statements", (v) => typeof v === "string" && KINDS.has(v), `one of ${[...KINDS].join(", ")}`) as Map<string, StatementKind>,
  };
}

function table(value: unknown, name: string, ok: (v: unknown) => boolean, expected: string): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined) return out;
  if (!isObject(value)) throw new Error(`--settings ${name} must map callees to values`);
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (!key || !ok(v)) throw new Error(`--settings ${name}.${key || '""'} must be ${expected}, not ${JSON.stringify(v)}`);
    out.set(key, v as string);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The user's entry for a callee: the callee itself, else its longest dotted prefix. */
export function lookupCallee<T>(table: ReadonlyMap<string, T>, callee: string): T | undefined {
  if (table.size === 0) return undefined;
  let key = callee;
  for (;;) {
    const hit = table.get(key);
    if (hit !== undefined) return hit;
    const dot = key.lastIndexOf(".");
    if (dot <= 0) return undefined;
    key = key.slice(0, dot);
  }
}
