// Static methods called on a name bound from a dynamic import (`const { Logger } = await
// import("@vendure/core"); Logger.warn(...)`), found from the imported module's exports. The
// checker types such a name from the type of the whole import, which in a CommonJS file under
// esModuleInterop spreads every export of the module into one with a synthetic default: on
// vendure's core, `import("@vendure/core")` is the package's own index (542 members, about
// 5,000 types), where the method's declaration needs none of it.
import * as ts from "typescript";
import { skipParentheses, unalias } from "./names";

/** The static method `X.m` denotes when `X` is bound by `const { X } = await import("spec")`
 *  (no annotation, no default, no rest) to a class the module exports, and the class itself
 *  declares `m` once, as a static method with a body: the declaration the checker's symbol for
 *  `m` has (a static of a base class, an overload or a merged namespace is left to it). */
export function importedStaticMethod(checker: ts.TypeChecker, callee: ts.Expression): ts.MethodDeclaration | undefined {
  callee = skipParentheses(callee);
  if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression) || !ts.isIdentifier(callee.name)) return undefined;
  const binding = checker.getSymbolAtLocation(callee.expression)?.valueDeclaration;
  const spec = binding && importedFrom(binding);
  if (!spec) return undefined;
  const exported = ((binding as ts.BindingElement).propertyName ?? (binding as ts.BindingElement).name) as ts.Identifier;
  const moduleSymbol = checker.getSymbolAtLocation(spec);
  const found = moduleSymbol && checker.tryGetMemberInModuleExports(exported.text, moduleSymbol);
  const cls = found && unalias(checker, found);
  if (!cls || cls.flags !== ts.SymbolFlags.Class || cls.declarations?.length !== 1) return undefined;
  const member = cls.exports?.get(callee.name.escapedText);
  const decls = member?.declarations;
  if (!decls || decls.length !== 1) return undefined;
  const m = decls[0];
  return ts.isMethodDeclaration(m) && !!m.body && !!(ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static) ? m : undefined;
}

/** The module specifier of `const { X } = await import("spec")` for the binding element `X`. */
function importedFrom(binding: ts.Declaration): ts.StringLiteral | undefined {
  if (!ts.isBindingElement(binding) || binding.dotDotDotToken || binding.initializer || !ts.isIdentifier(binding.name)) return undefined;
  if (binding.propertyName && !ts.isIdentifier(binding.propertyName)) return undefined;
  const pattern = binding.parent;
  const decl = pattern.parent;
  if (!ts.isObjectBindingPattern(pattern) || !ts.isVariableDeclaration(decl) || decl.type || !decl.initializer) return undefined;
  if (!ts.isVariableDeclarationList(decl.parent) || !(decl.parent.flags & ts.NodeFlags.Const)) return undefined;
  const init = skipParentheses(decl.initializer);
  if (!ts.isAwaitExpression(init)) return undefined;
  const call = skipParentheses(init.expression);
  if (!ts.isCallExpression(call) || call.expression.kind !== ts.SyntaxKind.ImportKeyword) return undefined;
  const spec = call.arguments[0];
  return spec && ts.isStringLiteral(spec) ? spec : undefined;
}
