// Receivers the checker types `any` whatever a call's arguments are: the result of calling a
// callee typed `any` (`app.get(ChannelService)` where `app.get` is `any`: a framework whose
// types the program lacks, a stub declaring `any`), awaited or held in a `const`. The checker
// types such a call's arguments before it answers `any` (resolveUntypedCall), and a member of
// `any` names nothing: the call graph asks the callee's type alone. On vendure's core an
// argument bound from `await import("@vendure/core")` costs the checker about 5,000 types.
import * as ts from "typescript";
import { skipParentheses } from "./names";

/** `callee` is `r.m` and the checker types `r` as `any` without a symbol for `m`, decided
 *  without typing the arguments of the untyped call `r` is or holds. */
export function memberOfUntypedValue(checker: ts.TypeChecker, callee: ts.Expression): boolean {
  callee = skipParentheses(callee);
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const recv = skipParentheses(callee.expression);
  if (ts.isIdentifier(recv)) return constOfUntypedCall(checker, recv);
  return untypedCallResult(checker, recv);
}

/** `f(...)` or `await f(...)` with `f` typed `any`. Only parentheses are looked through: an
 *  assertion (`(f() as Repo)`) gives the value a type of its own. */
function untypedCallResult(checker: ts.TypeChecker, e: ts.Expression): boolean {
  if (ts.isAwaitExpression(e)) e = skipParentheses(e.expression);
  if (!ts.isCallExpression(e) || e.expression.kind === ts.SyntaxKind.SuperKeyword || e.expression.kind === ts.SyntaxKind.ImportKeyword) return false;
  return (checker.getTypeAtLocation(e.expression).flags & ts.TypeFlags.Any) !== 0;
}

/** `const x = f(...)` (no annotation) with `f` typed `any`: `x` is `any` wherever nothing narrows
 *  it. `any` is narrowed by `instanceof`, `typeof` and type-guard or assertion calls: a name
 *  that is their operand or a call's argument anywhere in the declaring function is left to
 *  the checker. */
function constOfUntypedCall(checker: ts.TypeChecker, id: ts.Identifier): boolean {
  const decl = checker.getSymbolAtLocation(id)?.valueDeclaration;
  if (!decl || !ts.isVariableDeclaration(decl) || decl.type || !decl.initializer || !ts.isIdentifier(decl.name)) return false;
  if (!ts.isVariableDeclarationList(decl.parent) || !(decl.parent.flags & ts.NodeFlags.Const)) return false;
  if (!untypedCallResult(checker, skipParentheses(decl.initializer))) return false;
  return !mayBeNarrowed(decl.name.text, scopeOf(decl));
}

function scopeOf(n: ts.Node): ts.Node {
  let cur = n.parent;
  while (!ts.isFunctionLike(cur) && !ts.isSourceFile(cur)) cur = cur.parent;
  return cur;
}

function mayBeNarrowed(name: string, scope: ts.Node): boolean {
  const named = (e: ts.Node) => {
    const inner = skipParentheses(e as ts.Expression);
    return ts.isIdentifier(inner) && inner.text === name;
  };
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isTypeOfExpression(n) && named(n.expression)) found = true;
    else if (ts.isBinaryExpression(n) && ((n.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword && named(n.left)) || (n.operatorToken.kind === ts.SyntaxKind.InKeyword && named(n.right)))) found = true;
    else if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && n.arguments?.some(named)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(scope);
  return found;
}
