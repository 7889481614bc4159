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
 * method named in STATEMENT_METHODS is made in the unit's own body (not in a nested function,
 * which the walk may call with another `this`) on a receiver whose value the walk takes from
 * types alone and finds no TypeORM handle and no ActiveRecord entity in: `this`, a chain of
 * members from `this` (`this.x`, `this.x.y`), or a parameter of the unit never assigned in it.
 * The walk starts a unit with no `this` value and binds its parameters from their types (an
 * autocommit walk holds no runner), so such a call is an application method's or a library's,
 * neither of which records anything there. False: walk it.
 */
export function recordsNothing(env: WalkEnv, fn: ts.FunctionLikeDeclaration): boolean {
  if (env.catalog.statements.size > 0) return false;
  const receivers = new PlainReceivers(env, fn);
  let quiet = true;
  const visit = (n: ts.Node): void => {
    if (!quiet) return;
    if (ts.isAwaitExpression(n) && ts.isPropertyAccessExpression(stripParens(n.expression))) quiet = false;
    else if (ts.isCallExpression(n) && !harmlessCall(receivers, fn, n)) quiet = false;
    else ts.forEachChild(n, visit);
  };
  visit(fn);
  return quiet;
}

/** A call at which the walk records nothing itself (its arguments are visited on their own). */
function harmlessCall(receivers: PlainReceivers, fn: ts.FunctionLikeDeclaration, call: ts.CallExpression): boolean {
  const callee = stripParens(call.expression);
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isElementAccessExpression(callee) ? literalKey(callee.argumentExpression) : undefined;
  // a plain function call, a computed member: no statement at the call itself
  if (name === undefined || !STATEMENT_METHODS.has(name)) return true;
  return ts.isPropertyAccessExpression(callee) && inOwnBody(call, fn) && receivers.plainReceiver(stripParens(callee.expression));
}

/** What the walk makes of a receiver, where types alone decide it. */
class PlainReceivers {
  private assigned: Set<string> | undefined;

  constructor(private readonly env: WalkEnv, private readonly fn: ts.FunctionLikeDeclaration) {}

  /** The walk's value of `e` holds no handle, no query builder and no ActiveRecord entity
   *  (walker.ts methodCall: activeRecordClass, the ActiveRecord instance methods). */
  plainReceiver(e: ts.Expression): boolean {
    if (!this.plainValue(e)) return false;
    const checker = this.env.checker;
    if (this.env.entities.byType(checker.getTypeAtLocation(e))?.activeRecord) return false;
    return e.kind === ts.SyntaxKind.ThisKeyword || !this.env.entities.bySymbol(checker.getSymbolAtLocation(e))?.activeRecord;
  }

  /** walker.ts evalExpr on `this` (no value of its own: `isThis`), on a member of a value with
   *  no handle, object or properties (typeHandleValue, else the base's sources), on a parameter
   *  (bindEntryParams: typeHandleValue, else an input, an entity's object if so typed). */
  private plainValue(e: ts.Expression): boolean {
    const checker = this.env.checker;
    if (e.kind === ts.SyntaxKind.ThisKeyword) return true;
    if (ts.isPropertyAccessExpression(e)) {
      return this.plainValue(stripParens(e.expression)) && !this.env.handles.of(checker.getTypeAtLocation(e)) &&
        // the base's value must hold no object: `this` and members hold none, a parameter may
        stripParens(e.expression).kind !== ts.SyntaxKind.Identifier;
    }
    if (ts.isIdentifier(e)) {
      const decl = checker.getSymbolAtLocation(e)?.valueDeclaration;
      if (!decl || !ts.isParameter(decl) || decl.parent !== this.fn || !ts.isIdentifier(decl.name)) return false;
      if (this.assignedNames().has(decl.name.text)) return false;
      const declared = checker.getTypeAtLocation(decl.name);
      return !this.env.handles.of(declared) && !this.env.entities.byType(declared)?.activeRecord;
    }
    return false;
  }

  /** Names assigned anywhere in the unit (walker.ts isStable reads them the same way). */
  private assignedNames(): Set<string> {
    if (this.assigned) return this.assigned;
    const out = new Set<string>();
    const names = (t: ts.Node): void => {
      if (ts.isIdentifier(t)) out.add(t.text);
      else ts.forEachChild(t, names);
    };
    const visit = (x: ts.Node): void => {
      if (ts.isBinaryExpression(x) && x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment) names(x.left);
      else if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken)) names(x.operand);
      else if ((ts.isForOfStatement(x) || ts.isForInStatement(x)) && !ts.isVariableDeclarationList(x.initializer)) names(x.initializer);
      ts.forEachChild(x, visit);
    };
    visit(this.fn);
    return (this.assigned = out);
  }
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
