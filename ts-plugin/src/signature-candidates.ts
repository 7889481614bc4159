// Which declarations a call's signature can resolve to, read off the callee's type without
// resolving the call. The checker picks the signature of a call among the call signatures of
// the callee's type (its apparent type, without `null`/`undefined`); resolving which one makes it
// type and infer every argument, while the callee's type is typed once per name and kept. A
// call none of whose candidate signatures is declared by a function of interest cannot resolve
// to one, and its resolution is not worth asking for: the boundary finder asks "does this call
// invoke a transaction wrapper?" of every call under a wrapper's name or an alias it cannot rule
// out by its text (`resolve()`, `Ctx()`, `work(ctx)`: on vendure's core about 570 calls, whose
// resolutions the rest of the scan asks for again in 61 cases).
import * as ts from "typescript";

/**
 * False only when the signature `call` resolves to (checker.getResolvedSignature) certainly
 * has a declaration outside `declarations`: no call signature of the callee's type is declared
 * by one of them. A call whose callee's type has no call signature (`any`, an unknown name, a
 * value that is not a function) resolves to a signature without a declaration. Calls of
 * `super`, and callees whose type cannot be read, answer true (ask the checker).
 */
export function mayResolveToOneOf(checker: ts.TypeChecker, call: ts.CallExpression, declarations: { has(d: ts.Node): boolean }): boolean {
  if (call.expression.kind === ts.SyntaxKind.SuperKeyword) return true;
  const calleeType = checker.getTypeAtLocation(call.expression);
  // an optional call (`a?.b()`) and a call of a value that may be undefined are resolved
  // against the type without null and undefined
  const callable = checker.getNonNullableType(calleeType);
  for (const signature of callable.getCallSignatures()) {
    const d = signature.getDeclaration() as ts.Node | undefined;
    if (d && declarations.has(d)) return true;
  }
  return false;
}
