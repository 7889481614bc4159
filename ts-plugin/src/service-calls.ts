// Units whose autocommit walk would record nothing, told before walking them. A resolver's
// `return this.orderService.findOne(ctx, args.id)` is a unit the text test of autocommit.ts
// keeps (it calls a method named like a repository method), yet the call is an application
// service's, which an autocommit walk does not follow: the walk types the unit's parameters,
// arguments and receivers (on vendure's core, 293 of 489 walked units gave no statement and
// took three quarters of the walks' CPU) to find nothing. The test below follows the walk's own
// decisions (walker.ts evalCall, methodCall, evalPropertyAccess) at each call that could issue a
// statement, asking the checker only about `this.x`'s declared type.
import * as ts from "typescript";
import { ACTIVE_RECORD_INSTANCE, QUERY_BUILDER_TERMINALS, RELATION_TERMINALS, REPOSITORY_METHODS } from "./catalog/statements";
import { stripParens } from "./names";
import { WalkEnv } from "./walker";

/** Names of the methods at whose call a walk can record a statement (a repository or manager
 *  method, raw SQL, a query builder's or relation builder's terminal, an ActiveRecord instance
 *  method); every other call records one only through a function it walks (a callback written
 *  in the unit) or the user's statement catalog. */
const STATEMENT_METHODS: ReadonlySet<string> = new Set([
  ...Object.keys(REPOSITORY_METHODS), "query", ...Object.keys(QUERY_BUILDER_TERMINALS), ...Object.keys(RELATION_TERMINALS),
  ...Object.keys(ACTIVE_RECORD_INSTANCE),
]);

/**
 * True when the autocommit walk of `fn` records no statement: the user's catalog names no
 * statement, no member is awaited (a lazy relation, walker.ts lazyRelation), and every call of a
 * method named in STATEMENT_METHODS is made, in the unit's own body (not in a nested function,
 * which the walk may call with another `this`), on a member `this.x` whose type is no TypeORM
 * handle and no ActiveRecord entity. The walk evaluates such a receiver from its type alone (the
 * unit is walked with no `this` value of its own, and an autocommit walk holds no runner), so the
 * call is an application method's or a library's, neither of which records anything there.
 * False: walk it.
 */
export function recordsNothing(env: WalkEnv, fn: ts.FunctionLikeDeclaration): boolean {
  if (env.catalog.statements.size > 0) return false;
  let quiet = true;
  const visit = (n: ts.Node): void => {
    if (!quiet) return;
    if (ts.isAwaitExpression(n) && ts.isPropertyAccessExpression(stripParens(n.expression))) quiet = false;
    else if (ts.isCallExpression(n) && !harmlessCall(env, fn, n)) quiet = false;
    else ts.forEachChild(n, visit);
  };
  visit(fn);
  return quiet;
}

/** A call at which the walk records nothing itself (its arguments are visited on their own). */
function harmlessCall(env: WalkEnv, fn: ts.FunctionLikeDeclaration, call: ts.CallExpression): boolean {
  const callee = stripParens(call.expression);
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isElementAccessExpression(callee) ? literalKey(callee.argumentExpression) : undefined;
  // a plain function call, a computed member: no statement at the call itself
  if (name === undefined || !STATEMENT_METHODS.has(name)) return true;
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const receiver = stripParens(callee.expression);
  if (!ts.isPropertyAccessExpression(receiver) || receiver.expression.kind !== ts.SyntaxKind.ThisKeyword) return false;
  if (!inOwnBody(call, fn)) return false;
  const checker = env.checker;
  const type = checker.getTypeAtLocation(receiver);
  if (env.handles.of(type)) return false;
  if (env.entities.byType(type)?.activeRecord) return false;
  return !env.entities.bySymbol(checker.getSymbolAtLocation(receiver))?.activeRecord;
}

/** No function or class between the node and the unit: `this` there is the unit's own. */
function inOwnBody(n: ts.Node, fn: ts.Node): boolean {
  for (let cur = n.parent; cur && cur !== fn; cur = cur.parent) {
    if (ts.isFunctionLike(cur) || ts.isClassLike(cur)) return false;
  }
  return true;
}

function literalKey(e: ts.Expression): string | undefined {
  e = stripParens(e);
  return ts.isStringLiteral(e) || ts.isNumericLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) ? e.text : undefined;
}
