// Statements issued through repositories, managers and ActiveRecord: how each argument shape
// of the statement catalog (catalog/statements.ts) becomes a predicate, values and a kind, and
// how save()/remove() are keyed by where their object came from. Raw SQL (query()) too.
import * as ts from "typescript";
import { PESSIMISTIC_LOCKS, StatementApi } from "./catalog/statements";
import { EntityIndex, EntityInfo } from "./entities";
import { Frame } from "./frame";
import { Predicate, Source, StatementKind, StatementStep } from "./ir";
import { andPredicates, conditionPredicate, criteriaPredicate, EVERY_ROW, pkEquals, pkIn, wherePredicate } from "./predicates";
import { junctionReads } from "./junctions";
import { Operand, parseSql } from "./sql";
import { allSources, Handle, normSources, stepIds, union, UNKNOWN, Value } from "./values";
import type { TransactionWalk } from "./walker";

/** Options keys that make an object a find-options object rather than a 0.2 conditions object. */
const FIND_OPTION_KEYS = new Set([
  "where", "relations", "select", "order", "take", "skip", "lock", "withDeleted", "cache", "join", "loadEagerRelations",
  "relationLoadStrategy", "comment", "transaction", "loadRelationIds",
]);

export function repositoryStatement(
  w: TransactionWalk,
  call: ts.CallExpression, h: Handle, info: EntityInfo | undefined, name: string, api: StatementApi, vals: Value[], argExprs: ReadonlyArray<ts.Expression>, frame: Frame,
): Value {
  const entity = info?.record.name ?? h.entity ?? null;
  const ents = w.env.entities;
  const base = { entity, api: name, values: [] as StatementStep["values"], uses: [] as string[] };
  switch (api.shape) {
    case "options": {
      const v = vals[0];
      let predicate: Predicate = EVERY_ROW;
      let dynamic = false;
      let kind: StatementKind = "read";
      let whereValue: Value | undefined;
      if (!v || v.text === "undefined") {
        /* find(): every row */
      } else if (v.props && [...v.props.keys()].some((k) => FIND_OPTION_KEYS.has(k))) {
        const where = v.props.get("where");
        if (where) ({ predicate, dynamic } = wherePredicate(where, info, ents));
        whereValue = where;
        const lock = v.props.get("lock");
        const mode = lock?.props?.get("mode")?.text;
        if (mode && PESSIMISTIC_LOCKS.has(mode)) kind = "lock";
        dynamic ||= !!v.opaque;
      } else if (v.props) {
        // 0.2: findOne({ email }) / find({ email }) are conditions
        ({ predicate, dynamic } = wherePredicate(v, info, ents));
        whereValue = v;
        const opts = vals[1];
        const mode = opts?.props?.get("lock")?.props?.get("mode")?.text;
        if (mode && PESSIMISTIC_LOCKS.has(mode)) kind = "lock";
      } else if (isScalar(w, argExprs[0])) {
        // 0.2: findOne(id, options?)
        predicate = pkEquals(normSources(allSources(v)));
        const opts = vals[1];
        if (opts?.props?.get("where")) predicate = andPredicatesSafe(predicate, wherePredicate(opts.props.get("where"), info, ents).predicate);
        const mode = opts?.props?.get("lock")?.props?.get("mode")?.text;
        if (mode && PESSIMISTIC_LOCKS.has(mode)) kind = "lock";
      } else dynamic = true;
      return withJunctionReads(w, call, h, frame, whereValue, info, w.emitStatement(frame, call, h, { ...base, kind, predicate, dynamic }, manyResult(name)));
    }
    case "where": {
      const { predicate, dynamic } = wherePredicate(vals[0], info, ents);
      return withJunctionReads(w, call, h, frame, vals[0], info, w.emitStatement(frame, call, h, { ...base, kind: "read", predicate, dynamic }, manyResult(name)));
    }
    case "id":
      return w.emitStatement(frame, call, h, { ...base, kind: "read", predicate: pkEquals(normSources(allSources(vals[0]))), dynamic: false }, false);
    case "ids":
      return w.emitStatement(frame, call, h, { ...base, kind: "read", predicate: pkIn(normSources(allSources(vals[0]))), dynamic: false }, true);
    case "criteria": {
      const { predicate, dynamic } = criteriaPredicate(vals[0], info, ents);
      return w.emitStatement(frame, call, h, { ...base, kind: api.kind as StatementKind, predicate, dynamic }, false);
    }
    case "update": {
      const { predicate, dynamic } = criteriaPredicate(vals[0], info, ents);
      return w.emitStatement(frame, call, h, { ...base, kind: "write", predicate, dynamic, values: valuesOf(w, vals[1], info) }, false);
    }
    case "updateAll":
      return w.emitStatement(frame, call, h, { ...base, kind: "write", predicate: EVERY_ROW, dynamic: false, values: valuesOf(w, vals[0], info) }, false);
    case "step": {
      const { predicate, dynamic } = criteriaPredicate(vals[0], info, ents);
      const col = vals[1]?.text ?? "?";
      const values = [{ attribute: EntityIndex.attribute(info, col), sources: normSources([{ kind: "expression" }, ...allSources(vals[2])]) }];
      return w.emitStatement(frame, call, h, { ...base, kind: "write", predicate, dynamic, values }, false);
    }
    case "insert":
    case "mongo-insert": {
      const v = vals[0];
      const r = w.emitStatement(frame, call, h, { ...base, kind: "insert", predicate: null, dynamic: false, values: valuesOf(w, firstRow(v), info) }, false);
      const step = r.sources.find((s) => s.kind === "result")?.step;
      if (step) r.insertResult = step;
      return r;
    }
    case "upsert": {
      const v = vals[0];
      const row = firstRow(v);
      const conflict = vals[1];
      const paths: string[] = (conflict?.items ?? conflict?.props?.get("conflictPaths")?.items ?? []).map((i) => i.text ?? "").filter(Boolean);
      const cpProps = conflict?.props?.get("conflictPaths")?.props;
      if (cpProps) paths.push(...cpProps.keys());
      const terms = paths.map((p) => ({ attribute: EntityIndex.attribute(info, p), lookup: p, op: "eq" as const, sources: normSources(allSources(row?.props ? row.props.get(p) ?? UNKNOWN : row)) }));
      return w.emitStatement(frame, call, h, { ...base, kind: "write", predicate: { bool: "and", args: terms }, dynamic: paths.length === 0, values: valuesOf(w, row, info) }, false);
    }
    case "entity":
      return entityStatement(w, call, h, info, name, api, vals[0] ?? UNKNOWN, frame, argExprs[0]);
    case "column": {
      const { predicate, dynamic } = vals[1] ? wherePredicate(vals[1], info, ents) : { predicate: EVERY_ROW, dynamic: false };
      return w.emitStatement(frame, call, h, { ...base, kind: "read", predicate, dynamic }, false);
    }
    case "none":
      return w.emitStatement(frame, call, h, { ...base, kind: api.kind as StatementKind, predicate: EVERY_ROW, dynamic: false }, true);
    case "tree": {
      const src = normSources(allSources(vals[0]));
      const predicate: Predicate = { bool: "and", args: [{ attribute: "parent", lookup: `tree__${name}`, op: "other", sources: src.length ? src : [{ kind: "unknown" }] }] };
      return w.emitStatement(frame, call, h, { ...base, kind: "read", predicate, dynamic: false }, true);
    }
    case "preload": {
      const idv = vals[0]?.props ? [...vals[0].props.entries()].find(([k]) => EntityIndex.attribute(info, k) === "pk")?.[1] : undefined;
      return w.emitStatement(frame, call, h, { ...base, kind: "read", predicate: idv ? pkEquals(normSources(allSources(idv))) : EVERY_ROW, dynamic: !idv }, false);
    }
    case "mongo": {
      const { predicate, dynamic } = wherePredicate(vals[0], info, ents);
      const upd = vals[1]?.props?.get("$set") ?? vals[1];
      return w.emitStatement(frame, call, h, { ...base, kind: api.kind as StatementKind, predicate, dynamic, values: valuesOf(w, upd, info) }, false);
    }
    case "sql":
      return rawQuery(w, call, h, frame);
  }
  return UNKNOWN;
}

/** save/remove/softRemove/recover/reload of objects: the key is where the object came from. */
/** The junction tables a where through ManyToMany relations reads (junctions.ts), after the
 *  statement itself when it ran in the transaction. */
function withJunctionReads(
  w: TransactionWalk, call: ts.CallExpression, h: Handle, frame: Frame, where: Value | undefined, info: EntityInfo | undefined, result: Value,
): Value {
  if (!result.sources.some((s) => s.kind === "result")) return result;
  for (const j of junctionReads(where, info, w.env.entities)) {
    w.emitStatement(frame, call, h, { entity: j.entity, api: "join", kind: "read", predicate: j.predicate, dynamic: j.dynamic, values: [], uses: [] }, true);
  }
  return result;
}

export function entityStatement(w: TransactionWalk, call: ts.CallExpression, h: Handle, info: EntityInfo | undefined, name: string, api: StatementApi, v: Value, frame: Frame, argExpr?: ts.Expression): Value {
  const elems: Value[] = v.items ?? (v.elems ? [v.elems] : [v]);
  let entity = info?.record.name ?? h.entity ?? null;
  if (!entity) {
    for (const e of elems) if (e.obj?.entity) entity = e.obj.entity;
    if (!entity && argExpr) entity = w.env.entities.byType(w.checker.getTypeAtLocation(argExpr))?.record.name ?? null;
  }
  const einfo = entity ? w.env.entities.byName(entity) : info;
  const keySources: Source[] = [];
  const uses: string[] = [];
  const values: StatementStep["values"] = [];
  let allNew = true;
  let many = !!v.items || !!v.elems || !!v.obj?.many;
  for (const e of elems) {
    const o = e.obj;
    if (o) {
      for (const [k, fv] of o.fields) values.push({ attribute: EntityIndex.attribute(einfo, k), sources: normSources(allSources(fv)) });
      if (o.origin === "new" && !o.insertStep) continue;
      allNew = false;
      const wholeRow = api.kind === "save" || api.kind === "write"; // save()/recover() write the row back
      if (o.insertStep) keySources.push({ kind: "generated", step: o.insertStep });
      else if (o.step) {
        // its key: the one it was fetched by, else only known from the result
        if (o.key && !o.many) keySources.push(...o.key);
        else keySources.push({ kind: "result", step: o.step });
        if (wholeRow) uses.push(o.step); // the row read earlier flows into this write
      } else if (o.origin === "input") keySources.push({ kind: "input", name: `${o.name ?? "input"}.id` });
      else keySources.push({ kind: "unknown" });
      many ||= !!o.many;
    } else if (e.props) {
      for (const [k, fv] of e.props) values.push({ attribute: EntityIndex.attribute(einfo, k), sources: normSources(allSources(fv)) });
      const idEntry = [...e.props.entries()].find(([k]) => EntityIndex.attribute(einfo, k) === "pk");
      if (!idEntry) continue; // a plain object without key: inserted
      allNew = false;
      keySources.push(...allSources(idEntry[1]));
    } else {
      allNew = false;
      keySources.push(...(e.sources.length ? e.sources : [{ kind: "unknown" as const }]));
      uses.push(...stepIds(e.sources));
    }
  }
  let kind: StatementKind;
  if (api.kind === "save") kind = allNew ? "insert" : "write";
  else kind = api.kind as StatementKind;
  const ks = normSources(keySources);
  const predicate = kind === "insert" ? null : many ? pkIn(ks, "id__in") : pkEquals(ks);
  const valueList = name === "remove" || name === "softRemove" || name === "reload" ? [] : values;
  const r = w.emitStatement(frame, call, h, { entity, kind, api: name, predicate, dynamic: false, values: valueList, uses }, many);
  const step = r.sources.find((s) => s.kind === "result")?.step;
  if (step && kind === "insert") {
    for (const e of elems) if (e.obj && e.obj.origin === "new") e.obj.insertStep = step;
  }
  // save() returns the same object(s); a saved plain object comes back with its key
  if (elems.length === 1 && elems[0].obj) return { ...r, obj: elems[0].obj };
  if (elems.length === 1 && elems[0].props && step) {
    return { ...r, obj: { entity, origin: kind === "insert" ? "new" : "loaded", step: kind === "insert" ? undefined : step, insertStep: kind === "insert" ? step : undefined, fields: new Map(elems[0].props) } };
  }
  return r;
}

export function valuesOf(w: TransactionWalk, v: Value | undefined, info: EntityInfo | undefined): StatementStep["values"] {
  if (!v) return [];
  const props = v.props ?? v.obj?.fields;
  if (!props) return [];
  const out: StatementStep["values"] = [];
  for (const [k, pv] of props) {
    const sources = pv.closure ? [{ kind: "expression" as const }] : pv.sqlExpression ? [{ kind: "expression" as const }] : normSources(allSources(pv));
    out.push({ attribute: EntityIndex.attribute(info, k), sources: sources.length ? sources : [{ kind: "unknown" }] });
  }
  return out;
}

export function isScalar(w: TransactionWalk, e: ts.Expression | undefined): boolean {
  if (!e) return false;
  const t = w.checker.getTypeAtLocation(e);
  return !!(t.flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.StringLike | ts.TypeFlags.BigIntLike));
}

export function rawQuery(w: TransactionWalk, call: ts.CallExpression, h: Handle | undefined, frame: Frame): Value {
  const vals = w.evalArgs(call, frame);
  const sqlText = vals[0]?.text;
  const params = vals[1];
  const base = { api: "query", values: [] as StatementStep["values"], uses: [] as string[] };
  const parsed = sqlText !== undefined ? parseSql(sqlText) : null;
  if (!parsed) {
    return w.emitStatement(frame, call, h ?? null, { ...base, entity: null, kind: "raw", predicate: EVERY_ROW, dynamic: true, sql: sqlText, uses: stepIds(allSources(params)) }, true);
  }
  const info = w.env.entities.byTable(parsed.table);
  const paramSources = (op: Operand): Source[] => {
    if (op.type === "pos") return normSources(allSources(params?.items?.[op.index] ?? params?.elems ?? UNKNOWN));
    if (op.type === "param") return normSources(allSources(params?.props?.get(op.name) ?? UNKNOWN));
    return [{ kind: "constant" }];
  };
  const column = (path: string) => {
    const parts = path.split(".");
    if (parts.length > 1 && parsed.alias && parts[0] !== parsed.alias && parts[0] !== parsed.table) return null;
    const col = parts[parts.length - 1];
    return { attribute: EntityIndex.attribute(info, col), lookup: col };
  };
  let predicate: Predicate | null = EVERY_ROW;
  let dynamic = false;
  if (parsed.where) ({ predicate, dynamic } = conditionPredicate(parsed.where, { column, param: paramSources }));
  if (parsed.verb === "insert") predicate = null;
  const values = parsed.assignments.map((a) => {
    const srcs: Source[] = [];
    const collect = (o: Operand) => {
      if (o.type === "col") srcs.push({ kind: "expression" });
      else if (o.type === "param" || o.type === "pos") srcs.push(...paramSources(o));
      else if (o.type === "lit") srcs.push({ kind: "constant" });
      else if (o.type === "func") o.args.forEach(collect);
      else if (o.type === "list") o.items.forEach(collect);
      else if (o.type === "expr") o.parts.forEach(collect);
    };
    collect(a.value);
    return { attribute: EntityIndex.attribute(info, a.column), sources: normSources(srcs) };
  });
  return w.emitStatement(frame, call, h ?? null, {
    ...base, entity: info?.record.name ?? null, kind: "raw", predicate, dynamic, values, sql: sqlText,
  }, parsed.verb === "select");
}

export function manyResult(method: string): boolean {
  return !/^(findOne|findOneBy|findOneOrFail|findOneByOrFail|findOneById|count|countBy|exist|exists|existsBy|sum|average|minimum|maximum)$/.test(method);
}

/** The row of an insert/upsert value: the object, the first of a literal array, the element of a mapped array. */
export function firstRow(v: Value | undefined): Value | undefined {
  if (!v) return undefined;
  if (v.items?.length) return union(...v.items);
  if (v.elems) return v.elems;
  return v;
}

export function andPredicatesSafe(a: Predicate | null, b: Predicate): Predicate {
  return andPredicates(a, b);
}
