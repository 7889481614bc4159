// The checker's answers kept per node. ts-plugin asks about the same nodes again and again (a
// helper walked for each transaction and each calling context, every call site's callee
// resolved by the walk, the autocommit call graph and the hierarchy): on vendure's core 95% of
// about 780,000 `getSymbolAtLocation` calls and of 120,000 `getResolvedSignature` calls are
// repeats. The compiler caches little of this itself (an identifier's symbol is looked up
// through its scopes at every call), so each answer is kept here, per node, for the program's
// life. The answers are the checker's own: a program does not change once built.
import * as ts from "typescript";

/** One argument -> answer, `undefined` answers included. */
function memo1<A, R>(f: (a: A) => R): (a: A) => R {
  const kept = new Map<A, R>();
  return (a: A) => {
    const r = kept.get(a);
    if (r !== undefined || kept.has(a)) return r as R;
    const fresh = f(a);
    kept.set(a, fresh);
    return fresh;
  };
}

/** A checker answering the per-node questions ts-plugin asks from a cache, and every other
 *  question as the checker does (it is the checker's prototype). */
export function memoizedChecker(checker: ts.TypeChecker): ts.TypeChecker {
  const out = Object.create(checker) as ts.TypeChecker;
  out.getSymbolAtLocation = memo1(checker.getSymbolAtLocation);
  out.getTypeAtLocation = memo1(checker.getTypeAtLocation);
  out.getAliasedSymbol = memo1(checker.getAliasedSymbol);
  out.getShorthandAssignmentValueSymbol = memo1(checker.getShorthandAssignmentValueSymbol) as typeof checker.getShorthandAssignmentValueSymbol;
  out.getReturnTypeOfSignature = memo1(checker.getReturnTypeOfSignature);
  const signature = memo1((call: ts.CallLikeExpression) => checker.getResolvedSignature(call));
  // with a candidates array or an argument count the question differs: asked as is
  out.getResolvedSignature = (call, candidates?, argumentCount?) =>
    candidates === undefined && argumentCount === undefined ? signature(call) : checker.getResolvedSignature(call, candidates, argumentCount);
  return out;
}
