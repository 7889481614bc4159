// Naming and locating code: qualified names of functions (the IR's `function` and `via`),
// 1-based lines, and the *origin* of an expression: which module and export a value comes
// from (`axios`.default.post, `typeorm`.In). Origins let catalogs match library calls
// semantically even when the library is not installed and the checker only sees `any`.
import * as path from "path";
import * as ts from "typescript";
import { NodeTable } from "./checker-memo";
import { isStubFile, packageOfFile } from "./stubs";

export function lineOf(node: ts.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

export function endLineOf(node: ts.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
}

/** `src/orders/orders.service.ts` -> `src.orders.orders.service`. */
export function modulePath(rootDir: string, sf: ts.SourceFile): string {
  const rel = path.relative(rootDir, sf.fileName).split(path.sep).join("/");
  return rel.replace(/\.(d\.)?(ts|tsx|mts|cts)$/, "").replace(/\//g, ".");
}

function nameText(name: ts.PropertyName | ts.BindingName | undefined): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** Short name of a function-like node: declared name, variable/property it is assigned to,
 *  or `<callee>@<line>` for an anonymous callback (`router.post@12`). */
export function functionShortName(fn: ts.Node): string {
  const f = fn as ts.FunctionLikeDeclaration;
  const own = f.name ? nameText(f.name as ts.PropertyName) : undefined;
  if (own) return own;
  if (ts.isConstructorDeclaration(fn)) return "constructor";
  const p = fn.parent;
  if (p) {
    if (ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p)) {
      const n = nameText(p.name);
      if (n) return n;
    }
    if (ts.isNewExpression(p)) return `new ${p.expression.getText().replace(/\s+/g, "")}@${lineOf(fn)}`;
    if (ts.isCallExpression(p)) {
      const callee = p.expression.getText().replace(/\s+/g, "");
      return `${callee.length > 60 ? callee.slice(-60) : callee}@${lineOf(fn)}`;
    }
  }
  return `<anonymous>@${lineOf(fn)}`;
}

/** Qualified names already built, per scan root: the walk names every function it enters. */
const qualifiedNames = new Map<string, WeakMap<ts.Node, string>>();

/** Qualified name: module path, enclosing classes and functions, then the function's name. */
export function qualifiedName(rootDir: string, fn: ts.Node): string {
  let known = qualifiedNames.get(rootDir);
  if (!known) qualifiedNames.set(rootDir, (known = new WeakMap()));
  let name = known.get(fn);
  if (name === undefined) known.set(fn, (name = buildQualifiedName(rootDir, fn)));
  return name;
}

function buildQualifiedName(rootDir: string, fn: ts.Node): string {
  const parts: string[] = [];
  let cur: ts.Node | undefined = fn;
  while (cur && !ts.isSourceFile(cur)) {
    if (ts.isClassLike(cur)) parts.unshift(cur.name?.text ?? `<class>@${lineOf(cur)}`);
    else if (ts.isFunctionLike(cur) && (cur === fn || ts.isFunctionDeclaration(cur) || ts.isMethodDeclaration(cur) || ts.isConstructorDeclaration(cur))) {
      parts.unshift(functionShortName(cur));
    }
    cur = cur.parent;
  }
  return [modulePath(rootDir, fn.getSourceFile()), ...parts].join(".");
}

export function enclosingFunction(node: ts.Node): ts.FunctionLikeDeclaration | undefined {
  let cur: ts.Node | undefined = node.parent;
  while (cur) {
    if (ts.isFunctionLike(cur) && (cur as ts.FunctionLikeDeclaration).body) return cur as ts.FunctionLikeDeclaration;
    cur = cur.parent;
  }
  return undefined;
}

/** The symbol an import alias stands for (the symbol itself when it is no alias); undefined
 *  when the checker cannot resolve the alias (an import of a module that is not there). */
export function unalias(checker: ts.TypeChecker, sym: ts.Symbol): ts.Symbol | undefined {
  if (!(sym.flags & ts.SymbolFlags.Alias)) return sym;
  try {
    return checker.getAliasedSymbol(sym);
  } catch {
    return undefined;
  }
}

export function stripParens(e: ts.Expression): ts.Expression {
  while (
    ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)
  ) e = e.expression;
  return e;
}

/** Parentheses only (unlike stripParens): an `as`/`satisfies` or assertion gives the value a
 *  type of its own. */
export function skipParentheses(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/** The node naming a call's callee: the member name of `a.b(...)` or the identifier of
 *  `f(...)`, parentheses and casts skipped; undefined for other callees (`f()()`, `a[k]()`). */
export function calleeNameNode(call: ts.CallExpression | ts.NewExpression): ts.MemberName | undefined {
  const callee = stripParens(call.expression);
  return ts.isPropertyAccessExpression(callee) ? callee.name : ts.isIdentifier(callee) ? callee : undefined;
}

/** Where a value comes from, by module: `{module: "axios", path: ["default", "post"]}`. */
export interface Origin {
  module: string;
  path: string[];
}

export class OriginResolver {
  private cache = new NodeTable<Origin | null>();
  private active = new Set<ts.Node>();
  constructor(private checker: ts.TypeChecker) {}

  /** Origin of an expression (identifier, property chain, call, `new`), if it leads to an
   *  import, a require(), a global or a declaration typed by an imported type. */
  ofExpression(expr: ts.Expression): Origin | null {
    expr = stripParens(expr);
    const known = this.cache.peek(expr);
    if (known !== undefined) return known;
    if (this.active.has(expr)) return null;
    this.active.add(expr);
    let result: Origin | null = null;
    try {
      result = this.compute(expr);
    } finally {
      this.active.delete(expr);
    }
    this.cache.set(expr, result);
    return result;
  }

  private compute(expr: ts.Expression): Origin | null {
    if (ts.isIdentifier(expr)) return this.ofIdentifier(expr);
    if (ts.isPropertyAccessExpression(expr)) {
      if (expr.expression.kind === ts.SyntaxKind.ThisKeyword) return this.ofSymbol(this.checker.getSymbolAtLocation(expr), expr);
      const base = this.ofExpression(expr.expression);
      if (base) return { module: base.module, path: [...base.path, expr.name.text] };
      return this.ofType(expr);
    }
    if (ts.isElementAccessExpression(expr) && ts.isStringLiteral(expr.argumentExpression)) {
      const base = this.ofExpression(expr.expression);
      return base ? { module: base.module, path: [...base.path, expr.argumentExpression.text] } : null;
    }
    if (ts.isCallExpression(expr)) {
      if (ts.isIdentifier(expr.expression) && expr.expression.text === "require" && expr.arguments.length === 1 && ts.isStringLiteral(expr.arguments[0])) {
        return { module: expr.arguments[0].text, path: [] };
      }
      const callee = this.ofExpression(expr.expression);
      // util.promisify(execFile) is execFile
      if (callee && callee.module.replace(/^node:/, "") === "util" && callee.path.join(".") === "promisify" && expr.arguments[0]) {
        return this.ofExpression(expr.arguments[0]);
      }
      if (callee) return { module: callee.module, path: [...callee.path, "()"] };
      const sig = this.checker.getResolvedSignature(expr);
      const decl = sig?.declaration;
      if (decl && !ts.isJSDocSignature(decl) && !decl.getSourceFile().isDeclarationFile) return this.ofReturnType(decl);
      return null;
    }
    if (ts.isNewExpression(expr)) {
      const callee = this.ofExpression(expr.expression);
      return callee ? { module: callee.module, path: [...callee.path, "new"] } : null;
    }
    if (ts.isAwaitExpression(expr)) return this.ofExpression(expr.expression);
    return null;
  }

  private ofIdentifier(id: ts.Identifier): Origin | null {
    const sym = this.checker.getSymbolAtLocation(id);
    if (!sym) {
      // Undeclared (lib not loaded for it): a global such as fetch or setTimeout.
      return { module: "<global>", path: [id.text] };
    }
    return this.ofSymbol(sym, id);
  }

  ofSymbol(sym: ts.Symbol | undefined, at: ts.Node): Origin | null {
    if (!sym) return null;
    const decl = sym.declarations?.[0];
    if (!decl) return null;
    if (ts.isImportSpecifier(decl)) {
      const mod = (decl.parent.parent.parent as ts.ImportDeclaration).moduleSpecifier;
      const imported = (decl.propertyName ?? decl.name).text;
      // an export of the application itself (`import { s3 } from "./clients"`): follow it
      const local = this.appTarget(sym);
      if (local) return local;
      return ts.isStringLiteral(mod) ? { module: mod.text, path: [imported] } : null;
    }
    if (ts.isImportClause(decl)) {
      const mod = decl.parent.moduleSpecifier;
      return ts.isStringLiteral(mod) ? { module: mod.text, path: ["default"] } : null;
    }
    if (ts.isNamespaceImport(decl)) {
      const mod = decl.parent.parent.moduleSpecifier;
      return ts.isStringLiteral(mod) ? { module: mod.text, path: [] } : null;
    }
    if (ts.isImportEqualsDeclaration(decl)) {
      const ref = decl.moduleReference;
      if (ts.isExternalModuleReference(ref) && ts.isStringLiteral(ref.expression)) return { module: ref.expression.text, path: [] };
      return null;
    }
    const sf = decl.getSourceFile();
    if (sf.isDeclarationFile) {
      if (/[\\/]typescript[\\/]lib[\\/]lib\./.test(sf.fileName)) return { module: "<global>", path: [sym.name] };
      const pkg = packageOfFile(sf.fileName);
      if (pkg) return { module: pkg, path: [sym.name] };
      return null;
    }
    // A declaration in the app: follow its initializer or its declared type.
    if ((ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl)) && decl.initializer) {
      const o = this.ofExpression(decl.initializer);
      if (o) return o;
    }
    if ((ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isParameter(decl) || ts.isPropertySignature(decl)) && decl.type) {
      const o = this.ofTypeNode(decl.type);
      if (o) return { module: o.module, path: [...o.path, "new"] };
    }
    if (ts.isParameter(decl)) {
      // Nest injection by token: @InjectQueue('mail') queue: Queue, or untyped parameters.
      return null;
    }
    return null;
  }

  private appTarget(sym: ts.Symbol): Origin | null {
    const target = unalias(this.checker, sym);
    if (!target) return null;
    const d = target.declarations?.[0];
    if (!d || d.getSourceFile().isDeclarationFile || target === sym) return null;
    if (ts.isFunctionDeclaration(d)) return this.ofReturnType(d);
    const id = (d as ts.NamedDeclaration).name;
    return id && ts.isIdentifier(id) ? this.ofSymbol(target, id) : null;
  }

  /** A function of the app declared to return a library type (`Promise<amqp.Channel>`). */
  private ofReturnType(fn: ts.SignatureDeclaration): Origin | null {
    let t = fn.type;
    if (t && ts.isTypeReferenceNode(t) && t.typeName.getText() === "Promise" && t.typeArguments?.[0]) t = t.typeArguments[0];
    const o = t ? this.ofTypeNode(t) : null;
    return o ? { module: o.module, path: [...o.path, "new"] } : null;
  }

  /** Origin of a type annotation such as `Queue` (import from 'bull') or `AWS.S3`. */
  ofTypeNode(node: ts.TypeNode): Origin | null {
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName;
      if (ts.isIdentifier(name)) return this.ofSymbol(this.checker.getSymbolAtLocation(name), name);
      const left = this.ofEntityName(name.left);
      return left ? { module: left.module, path: [...left.path, name.right.text] } : null;
    }
    // `client: import("ioredis").Redis`
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const path: string[] = [];
      for (let q: ts.EntityName | undefined = node.qualifier; q; q = ts.isQualifiedName(q) ? q.left : undefined) path.unshift(ts.isQualifiedName(q) ? q.right.text : q.text);
      return { module: node.argument.literal.text, path };
    }
    if (ts.isUnionTypeNode(node)) {
      for (const t of node.types) {
        const o = this.ofTypeNode(t);
        if (o) return o;
      }
    }
    return null;
  }

  private ofEntityName(name: ts.EntityName): Origin | null {
    if (ts.isIdentifier(name)) return this.ofSymbol(this.checker.getSymbolAtLocation(name), name);
    const left = this.ofEntityName(name.left);
    return left ? { module: left.module, path: [...left.path, name.right.text] } : null;
  }

  /** Fallback through the checker: the declared type of the expression lives in a package. */
  private ofType(expr: ts.Expression): Origin | null {
    const type = this.checker.getTypeAtLocation(expr);
    const sym = type.aliasSymbol ?? type.getSymbol();
    const decl = sym?.declarations?.[0];
    if (!decl) return null;
    const sf = decl.getSourceFile();
    if (!sf.isDeclarationFile || isStubFile(sf.fileName)) return null;
    const pkg = packageOfFile(sf.fileName);
    return pkg ? { module: pkg, path: [sym!.name, "new"] } : null;
  }
}
