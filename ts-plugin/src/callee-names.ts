// Syntactic pre-filter for "does this call invoke one of these functions?". Resolving a call's
// signature makes the checker type the callee and infer every argument, which over all calls of
// an application costs as much as a full type check; a call can only reach a function through
// one of the names the function is declared under, so calls under other names are skipped
// before the checker is asked. The filter keeps every call it cannot judge by its text: callees
// that are not plain names (`f()()`, `obj[key]()`), and identifiers that may alias a function
// (imports, variables, parameters). One case is not seen: a method stored in a property of
// another name (`{ run: this.start }` called as `obj.run()`).
import * as ts from "typescript";
import { calleeNameNode, skipParentheses, stripParens, unalias } from "./names";

/** The names a function can be called by: its own, or the variable/property holding it. */
export function declaredNames(fn: ts.Node): string[] {
  const out: string[] = [];
  const named = fn as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) out.push(named.name.text);
  let holder: ts.Node = fn.parent;
  while (holder && (ts.isParenthesizedExpression(holder) || ts.isAsExpression(holder) || ts.isSatisfiesExpression(holder))) holder = holder.parent;
  if (holder && (ts.isVariableDeclaration(holder) || ts.isPropertyDeclaration(holder) || ts.isPropertyAssignment(holder)) &&
      (ts.isIdentifier(holder.name) || ts.isStringLiteral(holder.name) || ts.isPrivateIdentifier(holder.name))) {
    out.push(holder.name.text);
  }
  return out;
}

export class CalleeNameFilter {
  constructor(private checker: ts.TypeChecker) {}

  /** False only when `call` certainly calls none of the functions declared under `names`. */
  mayCall(call: ts.CallExpression | ts.NewExpression, names: ReadonlySet<string>): boolean {
    if (names.size === 0) return false;
    const callee = stripParens(call.expression);
    if (ts.isPropertyAccessExpression(callee)) return names.has(callee.name.text);
    if (ts.isElementAccessExpression(callee)) {
      const key = callee.argumentExpression;
      return ts.isStringLiteralLike(key) ? names.has(key.text) : true;
    }
    // `import("./module")` loads a module, it calls no function of the application
    if (callee.kind === ts.SyntaxKind.ImportKeyword) return false;
    if (!ts.isIdentifier(callee)) return true;
    if (names.has(callee.text)) return true;
    const sym = this.checker.getSymbolAtLocation(callee);
    if (!sym) return false; // an unknown name resolves to no declaration either
    const target = unalias(this.checker, sym);
    if (!target) return false;
    if (target !== sym && names.has(target.name)) return true;
    const declarations = target.declarations ?? [];
    // declared only in declaration files (a library's function, a global such as `Number`):
    // no application function, whose body is what the names stand for, can be the callee
    if (declarations.length > 0 && declarations.every((d) => d.getSourceFile().isDeclarationFile)) return false;
    // a `const` or default export holding a function written there is that function: it is
    // one of them only under its own name (the holder's was asked above)
    const literal = declarations.length === 1 ? fixedFunction(declarations[0]) : undefined;
    if (literal) return !!literal.name && names.has(literal.name.text);
    // a local alias (`const run = this.start`) or a parameter may hold any function
    return declarations.some((d) => !ts.isFunctionDeclaration(d) && !ts.isClassDeclaration(d) && !ts.isMethodDeclaration(d));
  }
}

/** The function expression a `const` or an `export default` is bound to for good (through
 *  the parentheses, `as` and `satisfies` declaredNames looks through); undefined for any other
 *  declaration or value. */
function fixedFunction(d: ts.Declaration): ts.ArrowFunction | ts.FunctionExpression | undefined {
  const constant = ts.isVariableDeclaration(d) && ts.isVariableDeclarationList(d.parent) && (d.parent.flags & ts.NodeFlags.Const) !== 0;
  const value = constant ? d.initializer : ts.isExportAssignment(d) && !d.isExportEquals ? d.expression : undefined;
  let fn = value;
  while (fn && (ts.isParenthesizedExpression(fn) || ts.isAsExpression(fn) || ts.isSatisfiesExpression(fn))) fn = fn.expression;
  return fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) ? fn : undefined;
}

/**
 * The declaration a call's signature resolves to, when the callee's name alone decides it: the
 * name denotes exactly one declaration, and that is a function or method with a body, or a
 * `const` (or `export default`) holding a function expression without a type of its own. The
 * checker would return the same declaration, but only after typing every argument (for a
 * decorator factory called with a large object literal, thousands of times, that is most of a
 * type check). undefined: ask the checker (overloads, merged declarations, typed values,
 * parameters, anything else).
 */
export function soleCallTarget(checker: ts.TypeChecker, call: ts.CallExpression): ts.Node | undefined {
  const name = calleeNameNode(call);
  if (!name) return undefined;
  const decls = declarationsOf(checker, name);
  if (!decls || decls.length !== 1) return undefined;
  const d = decls[0];
  if ((ts.isMethodDeclaration(d) || ts.isFunctionDeclaration(d)) && d.body) return d;
  const constant = ts.isVariableDeclaration(d) && !d.type && ts.isVariableDeclarationList(d.parent) && (d.parent.flags & ts.NodeFlags.Const) !== 0;
  const value = constant ? d.initializer : ts.isExportAssignment(d) && !d.isExportEquals ? d.expression : undefined;
  const fn = value && skipParentheses(value);
  return fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) ? fn : undefined;
}

/**
 * The declaration of a callee whose name is declared only in declaration files (a library's
 * function or method, a global): the declaration its signature resolves to is in a declaration
 * file too, and none of them has a body, so nothing of the application can be the callee. It
 * is found without resolving the signature, which would type every argument of every library
 * call the walks meet. undefined: declared in the application, or not named.
 */
export function libraryDeclaration(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): ts.Declaration | undefined {
  const name = calleeNameNode(call);
  if (!name) return undefined;
  const sym = denotedSymbol(checker, name);
  const declarations = sym?.declarations ?? [];
  if (declarations.length > 0 && declarations.every((d) => d.getSourceFile().isDeclarationFile)) return sym!.valueDeclaration ?? declarations[0];
  return undefined;
}

/** The declaration a call's signature resolves to (a JSDoc signature is none), from the
 *  callee's sole declaration when that decides it (soleCallTarget), from its library
 *  declaration (libraryDeclaration), none for a name imported from a missing module
 *  (unresolvedImport), the function type a value is annotated with, from the checker otherwise. */
export function calledDeclaration(checker: ts.TypeChecker, call: ts.CallExpression): ts.SignatureDeclaration | undefined {
  const sole = soleCallTarget(checker, call) as ts.SignatureDeclaration | undefined;
  if (sole) return sole;
  const library = libraryDeclaration(checker, call);
  if (library) return library as ts.SignatureDeclaration;
  const name = calleeNameNode(call);
  if (name && unresolvedImport(checker, name)) return undefined;
  // a value annotated with a function type: that type declares the signature
  const declared = name && declarationsOf(checker, name);
  const annotated = declared && declared.length === 1 ? annotatedFunctionType(declared[0]) : undefined;
  if (annotated) return annotated;
  const decl = checker.getResolvedSignature(call)?.declaration;
  return decl && !ts.isJSDocSignature(decl) ? decl : undefined;
}

/**
 * The implementation a call runs when the callee's name decides it: the name denotes one
 * function or method declared with a body, alone or after its overload signatures (all
 * declarations of one kind, in one class or file). Signature resolution would return the sole
 * declaration or one of the overloads, whose implementation is this one; finding it from the
 * declarations spares typing the call's arguments. undefined: anything else (merged or union
 * members, values holding functions, interface methods): ask the checker.
 */
export function implementationByName(checker: ts.TypeChecker, name: ts.Node): ts.FunctionDeclaration | ts.MethodDeclaration | undefined {
  return implementationAmong(declarationsOf(checker, name));
}

/** What a name denotes, through imports. */
function denotedSymbol(checker: ts.TypeChecker, name: ts.Node): ts.Symbol | undefined {
  const found = checker.getSymbolAtLocation(name);
  return found && unalias(checker, found);
}

/** The declarations of what a name denotes (through imports). */
function declarationsOf(checker: ts.TypeChecker, name: ts.Node): readonly ts.Declaration[] | undefined {
  return denotedSymbol(checker, name)?.declarations;
}

function implementationAmong(decls: readonly ts.Declaration[] | undefined): ts.FunctionDeclaration | ts.MethodDeclaration | undefined {
  if (!decls || decls.length === 0) return undefined;
  const kind = decls[0].kind;
  if (kind !== ts.SyntaxKind.MethodDeclaration && kind !== ts.SyntaxKind.FunctionDeclaration) return undefined;
  let body: ts.FunctionDeclaration | ts.MethodDeclaration | undefined;
  for (const d of decls) {
    if (d.kind !== kind || d.parent !== decls[0].parent) return undefined;
    const fn = d as ts.FunctionDeclaration | ts.MethodDeclaration;
    if (!fn.body) continue;
    if (body) return undefined; // two bodies: not one function's overloads
    body = fn;
  }
  return body;
}

/**
 * The overload signature a call resolves to when its argument count admits exactly one of the
 * callee's overloads (`getRepository(Entity)` against `getRepository(ctx, Entity)`): the
 * checker takes the first overload whose arity and argument types fit, and only this one's
 * arity does. undefined when the count admits none or several, the call spreads an argument or
 * passes type arguments, an overload has a `void` parameter (which may be left out), or the
 * callee is not a set of overloads with one implementation (implementationByName).
 */
export function overloadByArity(checker: ts.TypeChecker, call: ts.CallExpression): ts.SignatureDeclaration | undefined {
  if (call.typeArguments || call.arguments.some(ts.isSpreadElement)) return undefined;
  const name = calleeNameNode(call);
  const decls = name && declarationsOf(checker, name);
  if (!decls || !implementationAmong(decls)) return undefined;
  const count = call.arguments.length;
  let picked: ts.SignatureDeclaration | undefined;
  for (const d of decls) {
    const overload = d as ts.FunctionDeclaration | ts.MethodDeclaration;
    if (overload.body) continue;
    const arity = arityOf(overload);
    if (!arity) return undefined;
    if (count < arity.min || count > arity.max) continue;
    if (picked) return undefined;
    picked = overload;
  }
  return picked;
}

/** The argument counts a declaration accepts, from its parameters' syntax (a `this` parameter
 *  takes none); undefined when a parameter typed `void` may be left out. */
function arityOf(fn: ts.SignatureDeclaration): { min: number; max: number } | undefined {
  let min = 0, max = 0;
  for (const p of fn.parameters) {
    if (ts.isIdentifier(p.name) && p.name.text === "this") continue;
    if (p.type && mentionsVoid(p.type)) return undefined;
    if (p.dotDotDotToken) return { min, max: Number.POSITIVE_INFINITY };
    ++max;
    if (!p.questionToken && !p.initializer) min = max;
  }
  return { min, max };
}

function mentionsVoid(t: ts.TypeNode): boolean {
  if (t.kind === ts.SyntaxKind.VoidKeyword) return true;
  return ts.isUnionTypeNode(t) ? t.types.some(mentionsVoid) : ts.isParenthesizedTypeNode(t) && mentionsVoid(t.type);
}

/** An imported name whose import resolves to nothing (a module the program lacks): its call
 *  has no signature declaration, and resolving one would only type the arguments. */
export function unresolvedImport(checker: ts.TypeChecker, name: ts.Node): boolean {
  const found = checker.getSymbolAtLocation(name);
  const target = found && (found.flags & ts.SymbolFlags.Alias) !== 0 ? unalias(checker, found) : undefined;
  return !!target && !target.declarations?.length;
}

/**
 * A callee whose signature's declaration, whatever it is, has no body: a name declared only by
 * method signatures (an interface's), or a parameter, variable or property annotated with a
 * function type (`work: (m: EntityManager) => Promise<T>`, possibly `| undefined`), whose
 * signature is declared by that type. Code that walks a body learns nothing from resolving it.
 */
export function declaredWithoutBody(checker: ts.TypeChecker, name: ts.Node): boolean {
  const decls = declarationsOf(checker, name);
  if (!decls || decls.length === 0) return false;
  if (decls.every(ts.isMethodSignature)) return true;
  return decls.length === 1 && !!annotatedFunctionType(decls[0]);
}

/** The function type a parameter, variable or property is annotated with (`f: () => void`,
 *  `f?: () => void`, `f: (() => void) | undefined`): the declaration of its only signature. */
function annotatedFunctionType(d: ts.Declaration): ts.FunctionTypeNode | undefined {
  if (!(ts.isParameter(d) || ts.isVariableDeclaration(d) || ts.isPropertyDeclaration(d) || ts.isPropertySignature(d)) || !d.type) return undefined;
  let t: ts.TypeNode = d.type;
  while (ts.isParenthesizedTypeNode(t)) t = t.type;
  if (ts.isUnionTypeNode(t)) {
    const rest = t.types.filter((u) => !(u.kind === ts.SyntaxKind.UndefinedKeyword || (ts.isLiteralTypeNode(u) && u.literal.kind === ts.SyntaxKind.NullKeyword)));
    if (rest.length !== 1) return undefined;
    t = rest[0];
    while (ts.isParenthesizedTypeNode(t)) t = t.type;
  }
  return ts.isFunctionTypeNode(t) ? t : undefined;
}
