// QueryBuilder chains: builder state carried in values (so a builder kept in a variable and
// extended under conditions still reads right), condition strings parsed into predicates,
// parameters resolved when the query runs, and the terminal call that makes the statement.
import * as ts from "typescript";
import { PESSIMISTIC_LOCKS, QUERY_BUILDER_TERMINALS, RELATION_TERMINALS } from "./catalog/statements";
import { EntityIndex, typeormExportName } from "./entities";
import { Frame } from "./frame";
import { Predicate, Source, StatementKind } from "./ir";
import { stripParens } from "./names";
import { conditionPredicate, EVERY_ROW, orPredicates, pkEquals, pkIn, wherePredicate } from "./predicates";
import { firstRow, andPredicatesSafe, valuesOf } from "./repository-statements";
import { Cond, Operand, parseCondition } from "./sql";
import { allSources, Handle, known, normSources, QueryBuilderState, truthOf, UNKNOWN, Value } from "./values";
import { QUERY_CACHE_CALLEE } from "./query-cache";
import type { TransactionWalk } from "./walker";

export function newQb(kind: QueryBuilderState["kind"], entity: string | null, alias: string | null, handle: Handle): QueryBuilderState {
  return { kind, entity, alias, joins: new Map(), predicate: null, dynamic: false, params: new Map(), lock: false, values: null, handle, uses: new Set(), sqlParts: [] };
}

const PENDING_PARAM = "\u0000param:";

/** WHERE texts already parsed: a query builder in a helper is met at each walk of the helper
 *  (vendure's core: 719 parses of 107 texts). The answer depends on the text alone, and a
 *  parsed condition is only read (predicates.ts conditionPredicate), so it is shared. */
const parsedConditions = new Map<string, Cond | null>();
const MAX_PARSED_CONDITIONS = 10_000;

export function conditionOf(text: string): Cond | null {
  let cond = parsedConditions.get(text);
  if (cond === undefined) {
    if (parsedConditions.size >= MAX_PARSED_CONDITIONS) parsedConditions.clear();
    parsedConditions.set(text, (cond = parseCondition(text)));
  }
  return cond;
}

/** Replace parameters that were not known when the condition was read. */
function resolvePendingParams(p: Predicate, params: Map<string, Value>): Predicate {
  if ("attribute" in p) {
    if (!p.sources.some((s) => s.name?.startsWith(PENDING_PARAM))) return p;
    const sources = normSources(p.sources.flatMap((s) => {
      if (!s.name?.startsWith(PENDING_PARAM)) return [s];
      const v = params.get(s.name.slice(PENDING_PARAM.length));
      return v ? allSources(v) : [{ kind: "unknown" as const }];
    }));
    return { ...p, sources };
  }
  return { bool: p.bool, args: p.args.map((a) => resolvePendingParams(a, params)) };
}
export function qbCall(w: TransactionWalk, call: ts.CallExpression, recv: Value, name: string, frame: Frame): Value {
  const qb = recv.qb!;
  const args = call.arguments;
  const ents = w.env.entities;
  const self: Value = { sources: [{ kind: "unknown" }], qb };
  const main = () => (qb.entity ? ents.byName(qb.entity) : undefined);
  switch (name) {
    case "select": case "addSelect": case "distinct": case "distinctOn": case "orderBy": case "addOrderBy": case "groupBy":
    case "addGroupBy": case "limit": case "offset": case "take": case "skip": case "withDeleted": case "comment":
    case "printSql": case "useTransaction": case "callListeners": case "returning": case "output": case "updateEntity":
    case "setOnLocked": case "loadAllRelationIds": case "loadRelationIdAndMap": case "loadRelationCountAndMap": case "orIgnore":
    case "orUpdate": case "onConflict": case "timeTravelQuery": case "setQueryRunner": case "setFindOptions":
      w.evalArgs(call, frame);
      return self;
    case "cache": {
      // results kept in the data source's query cache: Redis is an effect (query-cache.ts)
      const v = w.evalArgs(call, frame);
      if (w.env.externalQueryCache && qb.handle.tx && truthOf(v[0] ?? known(true)) !== false) w.emitEffect(frame, call, "cache", QUERY_CACHE_CALLEE, []);
      return self;
    }
    case "having": case "andHaving": case "orHaving": {
      const v = w.evalArgs(call, frame);
      if (v[1]?.props) for (const [k, pv] of v[1].props) qb.params.set(k, pv);
      return self;
    }
    case "from": case "into": case "addFrom": {
      const ent = args[0] ? w.entityOfTarget(args[0]) : undefined;
      const v = w.evalArgs(call, frame);
      if (ent) qb.entity = ent.record.name;
      else if (v[0]?.text) qb.entity = ents.byName(v[0].text)?.record.name ?? ents.byTable(v[0].text)?.record.name ?? qb.entity;
      if (name !== "into" && v[1]?.text) qb.alias = v[1].text;
      return self;
    }
    case "insert": case "delete": case "softDelete": case "restore": {
      w.evalArgs(call, frame);
      qb.kind = name === "insert" ? "insert" : name === "delete" ? "delete" : name === "softDelete" ? "soft-delete" : "restore";
      return self;
    }
    case "update": {
      const v = w.evalArgs(call, frame);
      qb.kind = "update";
      const ent = args[0] ? w.entityOfTarget(args[0]) : undefined;
      if (ent) {
        qb.entity = ent.record.name;
        if (v[1]) qb.values = v[1];
      } else if (v[0]?.props) qb.values = v[0];
      return self;
    }
    case "set":
      if (qb.kind === "relation") break;
      qb.values = w.evalArgs(call, frame)[0] ?? null;
      return self;
    case "values":
      qb.values = w.evalArgs(call, frame)[0] ?? null;
      return self;
    case "relation": {
      w.evalArgs(call, frame);
      qb.kind = "relation";
      const ent = args.length > 1 ? w.entityOfTarget(args[0]) : undefined;
      if (ent) qb.entity = ent.record.name;
      const p = args[args.length - 1] ? stripParens(args[args.length - 1]) : undefined;
      qb.relationProperty = p && ts.isStringLiteral(p) ? p.text : undefined;
      return self;
    }
    case "of":
      qb.relationOf = w.evalExpr(args[0], frame);
      return self;
    case "innerJoin": case "leftJoin": case "innerJoinAndSelect": case "leftJoinAndSelect":
    case "innerJoinAndMapOne": case "innerJoinAndMapMany": case "leftJoinAndMapOne": case "leftJoinAndMapMany": {
      const v = w.evalArgs(call, frame);
      const off = name.includes("Map") ? 1 : 0;
      const target = v[off]?.text;
      const alias = v[off + 1]?.text;
      if (alias) {
        const rel = target && target.includes(".") ? target.split(".").pop()! : null;
        const ent = args[off] ? w.entityOfTarget(args[off]) : undefined;
        qb.joins.set(alias, { entity: ent?.record.name ?? null, relation: rel });
      }
      for (const [k, pv] of v[off + 3]?.props ?? []) qb.params.set(k, pv);
      return self;
    }
    case "setParameter": {
      const v = w.evalArgs(call, frame);
      if (v[0]?.text) qb.params.set(v[0].text, v[1] ?? UNKNOWN);
      return self;
    }
    case "setParameters": case "setNativeParameters": {
      const v = w.evalArgs(call, frame);
      for (const [k, pv] of v[0]?.props ?? []) qb.params.set(k, pv);
      if (v[0] && !v[0].props) qb.dynamic = true;
      return self;
    }
    case "setLock": {
      const v = w.evalArgs(call, frame);
      if (v[0]?.text && PESSIMISTIC_LOCKS.has(v[0].text)) qb.lock = true;
      return self;
    }
    case "where": case "andWhere": case "orWhere": case "whereInIds": case "andWhereInIds": case "orWhereInIds":
    case "whereExists": case "andWhereExists": case "orWhereExists": case "whereEntity": {
      const r = qbCondition(w, call, qb, name, frame);
      const conj = name.startsWith("or") ? "or" : name.startsWith("and") ? "and" : "where";
      if (conj === "where") qb.predicate = r;
      else if (conj === "and") qb.predicate = andPredicatesSafe(qb.predicate, r);
      else qb.predicate = orPredicates(qb.predicate, r);
      return self;
    }
    case "clone": case "subQuery": case "createQueryBuilder": {
      const copy: QueryBuilderState = { ...qb, joins: new Map(qb.joins), params: new Map(qb.params), uses: new Set(qb.uses) };
      if (name === "subQuery") {
        copy.predicate = null;
        copy.entity = null;
      }
      return { sources: [{ kind: "unknown" }], qb: copy };
    }
    case "getQuery": case "getSql": case "getParameters": case "getQueryAndParameters":
      return { sources: [{ kind: "unknown" }], text: undefined };
  }
  if (qb.kind === "relation" && RELATION_TERMINALS[name]) return relationTerminal(w, call, qb, name, frame);
  const term = QUERY_BUILDER_TERMINALS[name];
  if (term) {
    w.evalArgs(call, frame);
    let kind: StatementKind;
    if (term === "read" || qb.kind === "select") kind = qb.lock ? "lock" : "read";
    else kind = qb.kind === "insert" ? "insert" : qb.kind === "update" || qb.kind === "restore" ? "write" : "delete";
    const api = `createQueryBuilder.${qb.kind === "select" ? "" : qb.kind + "."}${name}`;
    const info = main();
    const values = kind === "insert" || kind === "write" ? valuesOf(w, firstRow(qb.values ?? undefined), info) : [];
    const predicate = kind === "insert" ? null : resolvePendingParams(qb.predicate ?? EVERY_ROW, qb.params);
    const r = w.emitStatement(frame, call, qb.handle, { entity: qb.entity, kind, api, predicate, dynamic: qb.dynamic, values, uses: [...qb.uses] }, name !== "getOne" && name !== "getOneOrFail" && name !== "getRawOne");
    if (kind === "insert") {
      const step = r.sources.find((s) => s.kind === "result")?.step;
      if (step) r.insertResult = step;
    }
    return r;
  }
  // unknown builder method: keep the builder
  w.evalArgs(call, frame);
  return self;
}

export function relationTerminal(w: TransactionWalk, call: ts.CallExpression, qb: QueryBuilderState, name: string, frame: Frame): Value {
  const vals = w.evalArgs(call, frame);
  const info = qb.entity ? w.env.entities.byName(qb.entity) : undefined;
  const rel = qb.relationProperty ? info?.relations.get(qb.relationProperty) : undefined;
  const ofSources = normSources(allSources(qb.relationOf));
  const kind = RELATION_TERMINALS[name];
  if (kind === "read") {
    const target = rel?.targetName ? w.env.entities.byName(rel.targetName) : undefined;
    const inverse = rel?.inverse ?? (info ? info.record.name.charAt(0).toLowerCase() + info.record.name.slice(1) : "owner");
    const predicate: Predicate = { bool: "and", args: [{ attribute: EntityIndex.attribute(target, inverse), lookup: `${inverse}`, op: "eq", sources: ofSources.length ? ofSources : [{ kind: "unknown" }] }] };
    return w.emitStatement(frame, call, qb.handle, { entity: target?.record.name ?? rel?.targetName ?? null, kind: "read", api: `relation.${name}`, predicate, dynamic: false, values: [], uses: [] }, name === "loadMany");
  }
  const values = [{ attribute: qb.relationProperty ?? "?", sources: normSources(vals.flatMap((v) => allSources(v))) }];
  return w.emitStatement(frame, call, qb.handle, { entity: qb.entity, kind, api: `relation.${name}`, predicate: pkEquals(ofSources), dynamic: false, values, uses: [] }, false);
}

/** The predicate of one where/andWhere/orWhere/whereInIds call. */
export function qbCondition(w: TransactionWalk, call: ts.CallExpression, qb: QueryBuilderState, name: string, frame: Frame): Predicate {
  const args = call.arguments;
  if (name.endsWith("InIds")) {
    const v = w.evalExpr(args[0], frame);
    return pkIn(normSources(allSources(v)));
  }
  if (name.endsWith("Exists") || name === "whereEntity") {
    w.evalArgs(call, frame);
    qb.dynamic = true;
    return EVERY_ROW;
  }
  const a0 = args[0] ? stripParens(args[0]) : undefined;
  if (!a0) return EVERY_ROW;
  // new Brackets(qb => ...): evaluate the callback against a fresh builder sharing params
  if (ts.isNewExpression(a0) && a0.arguments?.[0]) {
    const cb = w.evalExpr(a0.arguments[0], frame);
    if (cb.closure) {
      const sub: QueryBuilderState = { ...qb, predicate: null, params: qb.params, joins: qb.joins, uses: qb.uses };
      const negate = typeormExportName(w.checker, a0.expression) === "NotBrackets";
      w.invoke(cb.closure.fn, [{ sources: [{ kind: "unknown" }], qb: sub }], undefined, call, frame, cb.closure.frame as Frame | undefined, true);
      qb.dynamic ||= sub.dynamic;
      const p = sub.predicate ?? EVERY_ROW;
      return negate ? { bool: "not", args: [p] } : p;
    }
  }
  const v = w.evalExpr(a0, frame);
  const params = args[1] ? w.evalExpr(args[1], frame) : undefined;
  for (const [k, pv] of params?.props ?? []) qb.params.set(k, pv);
  if (v.closure) {
    qb.dynamic = true;
    return EVERY_ROW;
  }
  const info = qb.entity ? w.env.entities.byName(qb.entity) : undefined;
  if (v.props || v.items) {
    const r = wherePredicate(v, info, w.env.entities);
    qb.dynamic ||= r.dynamic;
    return r.predicate;
  }
  if (v.text === undefined) {
    qb.dynamic = true;
    return EVERY_ROW;
  }
  const cond = conditionOf(v.text);
  if (!cond) {
    qb.dynamic = true;
    return EVERY_ROW;
  }
  const column = (path: string) => {
    const parts = path.split(".");
    const col = parts[parts.length - 1];
    if (parts.length === 1 || parts[0] === qb.alias || (!qb.alias && (parts[0] === info?.record.table || parts[0] === info?.record.name))) {
      return { attribute: EntityIndex.attribute(info, col), lookup: col };
    }
    const join = qb.joins.get(parts[0]);
    if (join?.relation) return { attribute: EntityIndex.attribute(info, join.relation), lookup: `${join.relation}__${col}` };
    return null;
  };
  const param = (op: Operand): Source[] => {
    if (op.type === "param") {
      const pv = qb.params.get(op.name) ?? params?.props?.get(op.name);
      // set later with setParameter(s): resolved when the query runs
      return pv ? normSources(allSources(pv)) : [{ kind: "unknown", name: PENDING_PARAM + op.name }];
    }
    return [{ kind: "unknown" }];
  };
  const r = conditionPredicate(cond, { column, param });
  qb.dynamic ||= r.dynamic;
  return r.predicate;
}
