// Row selections in IR form. Three inputs meet here: TypeORM where objects (as abstract
// values, so a where object assembled in a variable reads like a literal one), FindOperators
// (In, MoreThan, Like, Not, ...), and parsed condition strings from QueryBuilders and raw SQL.
import { EntityIndex, EntityInfo } from "./entities";
import { Op, Predicate, Source, Term } from "./ir";
import { Cond, Operand } from "./sql";
import { allSources, normSources, Value } from "./values";

export interface PredicateResult {
  predicate: Predicate;
  dynamic: boolean;
}

export const EVERY_ROW: Predicate = { bool: "and", args: [] };

/** FindOperator -> IR operator and the Django-style lookup suffix it corresponds to. */
const FIND_OPERATORS: Readonly<Record<string, { op: Op; suffix: string }>> = {
  Equal: { op: "eq", suffix: "" },
  In: { op: "in", suffix: "__in" },
  Any: { op: "in", suffix: "__any" },
  MoreThan: { op: "range", suffix: "__gt" },
  MoreThanOrEqual: { op: "range", suffix: "__gte" },
  LessThan: { op: "range", suffix: "__lt" },
  LessThanOrEqual: { op: "range", suffix: "__lte" },
  Between: { op: "range", suffix: "__range" },
  Like: { op: "pattern", suffix: "__like" },
  ILike: { op: "pattern", suffix: "__ilike" },
  IsNull: { op: "null", suffix: "__isnull" },
  Raw: { op: "other", suffix: "__raw" },
  ArrayContains: { op: "other", suffix: "__contains" },
  ArrayContainedBy: { op: "other", suffix: "__contained_by" },
  ArrayOverlap: { op: "other", suffix: "__overlap" },
  JsonContains: { op: "other", suffix: "__json_contains" },
};
export const FIND_OPERATOR_NAMES = new Set([...Object.keys(FIND_OPERATORS), "Not", "And", "Or"]);

function srcs(v: Value | undefined): Source[] {
  const s = normSources(allSources(v));
  return s.length ? s : [{ kind: "unknown" }];
}

export function and(args: Predicate[]): Predicate {
  return { bool: "and", args };
}

/** Predicate of a where value (object, array of objects = OR, unknown = dynamic). */
export function wherePredicate(v: Value | undefined, info: EntityInfo | undefined, entities: EntityIndex): PredicateResult {
  if (!v) return { predicate: EVERY_ROW, dynamic: false };
  if (v.items) {
    if (v.items.length === 1) return wherePredicate(v.items[0], info, entities);
    const parts = v.items.map((i) => wherePredicate(i, info, entities));
    return { predicate: { bool: "or", args: parts.map((p) => p.predicate) }, dynamic: parts.some((p) => p.dynamic) };
  }
  if (v.props) {
    const args: Predicate[] = [];
    for (const [k, pv] of v.props) args.push(...terms(info, entities, [k], pv));
    return { predicate: and(args), dynamic: !!v.opaque };
  }
  if (v.sources.every((s) => s.kind === "constant") && v.text === "undefined") return { predicate: EVERY_ROW, dynamic: false };
  return { predicate: EVERY_ROW, dynamic: true };
}

function terms(info: EntityInfo | undefined, entities: EntityIndex, path: string[], v: Value): Predicate[] {
  const attribute = EntityIndex.attribute(info, path[0]);
  const lookup = path.join("__");
  if (v.findOp) return [opPredicate(attribute, lookup, v)];
  if (v.props && !v.obj && !v.handle) {
    // nested object: a relation ({user: {id}}) or an embedded column ({address: {city}})
    const out: Predicate[] = [];
    for (const [k, sub] of v.props) {
      for (const t of terms(info, entities, [...path, k], sub)) out.push(reattribute(t, attribute));
    }
    return out;
  }
  if (v.text === "null" && v.sources.every((s) => s.kind === "constant")) return [{ attribute, lookup: lookup + "__isnull", op: "null", sources: [{ kind: "constant" }] }];
  if (v.text === "undefined" && v.sources.every((s) => s.kind === "constant")) return []; // TypeORM drops undefined keys
  return [{ attribute, lookup, op: "eq", sources: srcs(v) }];
}

function reattribute(p: Predicate, attribute: string): Predicate {
  if ("attribute" in p) return { ...p, attribute };
  return { bool: p.bool, args: p.args.map((a) => reattribute(a, attribute)) };
}

function opPredicate(attribute: string, lookup: string, v: Value): Predicate {
  const f = v.findOp!;
  if (f.name === "Not") {
    const inner = f.args[0];
    const arg = inner && inner.findOp ? opPredicate(attribute, lookup, inner) : ({ attribute, lookup, op: "eq", sources: srcs(inner) } as Term);
    return { bool: "not", args: [arg] };
  }
  if (f.name === "And" || f.name === "Or") {
    return { bool: f.name === "And" ? "and" : "or", args: f.args.map((a) => (a.findOp ? opPredicate(attribute, lookup, a) : ({ attribute, lookup, op: "eq", sources: srcs(a) } as Term))) };
  }
  const spec = FIND_OPERATORS[f.name] ?? { op: "other" as Op, suffix: "__" + f.name.toLowerCase() };
  const sources = f.name === "IsNull" ? [{ kind: "constant" } as Source] : normSources(f.args.flatMap((a) => allSources(a)));
  return { attribute, lookup: lookup + spec.suffix, op: spec.op, sources: sources.length ? sources : [{ kind: "constant" }] };
}

/** Key predicate: `pk = value` (id argument, saved object's key). */
export function pkEquals(sources: Source[], lookup = "id"): Predicate {
  return and([{ attribute: "pk", lookup, op: "eq", sources: sources.length ? sources : [{ kind: "unknown" }] }]);
}
export function pkIn(sources: Source[], lookup = "id__in"): Predicate {
  return and([{ attribute: "pk", lookup, op: "in", sources: sources.length ? sources : [{ kind: "unknown" }] }]);
}

/** update/delete criteria: an id, an array of ids, or a where object. */
export function criteriaPredicate(v: Value | undefined, info: EntityInfo | undefined, entities: EntityIndex): PredicateResult {
  if (!v) return { predicate: EVERY_ROW, dynamic: true };
  if (v.props || (v.items && v.items.every((i) => i.props))) return wherePredicate(v, info, entities);
  if (v.items || v.elems) return { predicate: pkIn(srcs(v)), dynamic: false };
  if (v.obj) return { predicate: pkEquals(srcs(v)), dynamic: false };
  return { predicate: pkEquals(srcs(v)), dynamic: false };
}

// ---- condition strings (QueryBuilder where, raw SQL) ----

export interface ConditionContext {
  /** resolve a column reference (`u.email`, `email`) to an IR attribute and lookup; null
   *  when it names another table that this statement does not select from */
  column(path: string): { attribute: string; lookup: string } | null;
  /** sources of a parameter (`:id`, `$1`, `?`) */
  param(op: Operand): Source[];
}

const CMP_OPS: Readonly<Record<string, { op: Op; suffix: string }>> = {
  "=": { op: "eq", suffix: "" },
  "!=": { op: "ne", suffix: "__ne" },
  "<>": { op: "ne", suffix: "__ne" },
  "<": { op: "range", suffix: "__lt" },
  ">": { op: "range", suffix: "__gt" },
  "<=": { op: "range", suffix: "__lte" },
  ">=": { op: "range", suffix: "__gte" },
  between: { op: "range", suffix: "__range" },
  like: { op: "pattern", suffix: "__like" },
  "~": { op: "pattern", suffix: "__regex" },
  "~*": { op: "pattern", suffix: "__iregex" },
  "!~": { op: "pattern", suffix: "__regex" },
  "!~*": { op: "pattern", suffix: "__iregex" },
  in: { op: "in", suffix: "__in" },
  isnull: { op: "null", suffix: "__isnull" },
};

function operandSources(o: Operand, ctx: ConditionContext): { sources: Source[]; column: string | null } {
  switch (o.type) {
    case "lit":
      return { sources: [{ kind: "constant" }], column: null };
    case "param":
    case "pos":
      return { sources: ctx.param(o), column: null };
    case "col":
      return { sources: [], column: o.path };
    case "list":
    case "expr":
    case "func": {
      const parts = o.type === "func" ? o.args : o.type === "list" ? o.items : o.parts;
      const out: Source[] = [];
      let column: string | null = null;
      for (const p of parts) {
        const r = operandSources(p, ctx);
        out.push(...r.sources);
        column ??= r.column;
      }
      return { sources: out, column };
    }
  }
}

/** IR predicate of a parsed condition; `dynamic` when part of it could not be attributed. */
export function conditionPredicate(c: Cond, ctx: ConditionContext): PredicateResult {
  let dynamic = false;
  const conv = (c: Cond): Predicate | null => {
    switch (c.type) {
      case "true":
        return null;
      case "and":
      case "or": {
        const args = c.args.map(conv).filter((x): x is Predicate => !!x);
        if (c.type === "and") return { bool: "and", args };
        if (args.length !== c.args.length) { dynamic = true; return null; }
        return { bool: "or", args };
      }
      case "not": {
        const a = conv(c.arg);
        return a ? { bool: "not", args: [a] } : null;
      }
      case "cmp": {
        let left = c.left;
        let right = c.right;
        // `:id = u.id` reads as `u.id = :id`
        if (left.type !== "col" && left.type !== "func" && right.length === 1 && (right[0].type === "col" || right[0].type === "func")) {
          [left, right] = [right[0], [left]];
        }
        const spec = CMP_OPS[c.op] ?? { op: "other" as Op, suffix: "__other" };
        let colPath: string | null = null;
        let op = spec.op;
        if (left.type === "col") colPath = left.path;
        else if (left.type === "func" || left.type === "expr") {
          colPath = operandSources(left, ctx).column; // LOWER(u.email) = :e: not a plain key lookup
          if (op === "eq" || op === "in") op = "other";
        }
        if (!colPath) { dynamic = true; return null; }
        const col = ctx.column(colPath);
        if (!col) return null; // condition on another table (join): does not select this entity's rows
        const sources: Source[] = [];
        for (const r of right) {
          const s = operandSources(r, ctx);
          if (s.column) sources.push({ kind: "unknown" }); // column compared with column
          sources.push(...s.sources);
        }
        const ns = normSources(sources);
        return { attribute: col.attribute, lookup: col.lookup + spec.suffix, op, sources: ns.length ? ns : [{ kind: "constant" }] };
      }
    }
  };
  const p = conv(c);
  const predicate = p ? ("attribute" in p ? and([p]) : p) : EVERY_ROW;
  return { predicate, dynamic };
}

/** AND two predicates (QueryBuilder andWhere). */
export function andPredicates(a: Predicate | null, b: Predicate): Predicate {
  if (!a) return b;
  const flat = (p: Predicate): Predicate[] => ("bool" in p && p.bool === "and" ? p.args : [p]);
  return { bool: "and", args: [...flat(a), ...flat(b)] };
}
export function orPredicates(a: Predicate | null, b: Predicate): Predicate {
  if (!a) return b;
  const flat = (p: Predicate): Predicate[] => ("bool" in p && p.bool === "or" ? p.args : [p]);
  return { bool: "or", args: [...flat(a), ...flat(b)] };
}

/** Statements of an entity with a composite primary key: under each `and`, equality terms on
 *  every key column together are one `pk` term (the row is known); an equality on only some
 *  of them stays a term per column (not a key lookup). */
export function compositeKeys(p: Predicate | null, pk: ReadonlyArray<string>): Predicate | null {
  if (!p || pk.length < 2 || "attribute" in p) return p;
  const args = p.args.map((a) => compositeKeys(a, pk)!);
  if (p.bool !== "and") return { bool: p.bool, args };
  const keyTerms = pk.map((col) => args.find((a): a is Term => "attribute" in a && a.attribute === col && a.op === "eq"));
  if (keyTerms.some((t) => !t)) return { bool: "and", args };
  const terms = keyTerms as Term[];
  const key: Term = { attribute: "pk", lookup: terms.map((t) => t.lookup).join("+"), op: "eq", sources: normSources(terms.flatMap((t) => t.sources)) };
  return { bool: "and", args: [key, ...args.filter((a) => !terms.includes(a as Term))] };
}
