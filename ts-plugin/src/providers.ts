// NestJS providers bound to tokens: `providers: [{ provide: TOKEN, useClass | useExisting |
// useFactory }]` in the application's modules. A member injected with `@Inject(TOKEN)` (or
// typed by an abstract class that is itself a token) is an instance of the class the token is
// bound to, so calls on it are followed into that class: its statements and effects are the
// transaction's. A factory binds the class it constructs (`new C(...)`) or declares it returns.
import * as ts from "typescript";
import { implementationOf } from "./hierarchy";
import { stripParens, unalias } from "./names";

type TokenKey = string | ts.Node;

export class ProviderIndex {
  private bound = new Map<TokenKey, ts.ClassLikeDeclaration>();

  constructor(private checker: ts.TypeChecker, files: ReadonlyArray<ts.SourceFile>, isAppFile: (sf: ts.SourceFile) => boolean) {
    for (const f of files) if (f.text.includes("provide")) this.visit(f, isAppFile);
  }

  get size(): number {
    return this.bound.size;
  }

  private visit(n: ts.Node, isAppFile: (sf: ts.SourceFile) => boolean): void {
    if (ts.isObjectLiteralExpression(n)) {
      const m = members(n);
      const token = m.get("provide");
      if (token) {
        const key = this.keyOf(token);
        const cls = this.classOf(m.get("useClass") ?? m.get("useExisting"), isAppFile) ?? this.factoryClass(m.get("useFactory"), isAppFile);
        if (key && cls && !this.bound.has(key)) this.bound.set(key, cls);
      }
    }
    ts.forEachChild(n, (c) => this.visit(c, isAppFile));
  }

  /** A token: a string literal by its text, anything else by its declaration. */
  private keyOf(e: ts.Expression): TokenKey | undefined {
    e = stripParens(e);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return `str:${e.text}`;
    const found = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
    const sym = found && unalias(this.checker, found);
    const decl = sym?.valueDeclaration ?? sym?.declarations?.[0];
    if (!decl) return undefined;
    // `const TOKEN = "mailer"`: the string is the token
    if (ts.isVariableDeclaration(decl) && decl.initializer && (ts.isStringLiteral(decl.initializer) || ts.isNoSubstitutionTemplateLiteral(decl.initializer))) {
      return `str:${decl.initializer.text}`;
    }
    return decl;
  }

  private classOf(e: ts.Expression | undefined, isAppFile: (sf: ts.SourceFile) => boolean): ts.ClassLikeDeclaration | undefined {
    if (!e) return undefined;
    e = stripParens(e);
    const found = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
    const sym = found && unalias(this.checker, found);
    const decl = sym?.declarations?.find((d) => ts.isClassLike(d));
    return decl && isAppFile(decl.getSourceFile()) ? (decl as ts.ClassLikeDeclaration) : undefined;
  }

  private factoryClass(e: ts.Expression | undefined, isAppFile: (sf: ts.SourceFile) => boolean): ts.ClassLikeDeclaration | undefined {
    if (!e) return undefined;
    e = stripParens(e);
    if (!ts.isArrowFunction(e) && !ts.isFunctionExpression(e)) return undefined;
    let made: ts.ClassLikeDeclaration | undefined;
    const visit = (n: ts.Node): void => {
      if (made) return;
      if (ts.isNewExpression(n)) made = this.classOf(n.expression, isAppFile);
      if (!made) ts.forEachChild(n, visit);
    };
    visit(e.body);
    if (made) return made;
    const sig = this.checker.getSignatureFromDeclaration(e);
    const ret = sig && this.checker.getAwaitedType(this.checker.getReturnTypeOfSignature(sig));
    const decl = ret?.getSymbol()?.declarations?.find((d) => ts.isClassLike(d));
    return decl && isAppFile(decl.getSourceFile()) ? (decl as ts.ClassLikeDeclaration) : undefined;
  }

  /** The class bound to the member a receiver expression names (`this.mailer`), if injected
   *  by a token the modules bind. */
  classOfMember(recv: ts.Expression): ts.ClassLikeDeclaration | undefined {
    if (this.bound.size === 0) return undefined;
    recv = stripParens(recv);
    if (!ts.isPropertyAccessExpression(recv) || recv.expression.kind !== ts.SyntaxKind.ThisKeyword) return undefined;
    const sym = this.checker.getSymbolAtLocation(recv.name);
    for (const d of sym?.declarations ?? []) {
      if (!ts.isParameter(d) && !ts.isPropertyDeclaration(d)) continue;
      for (const dec of ts.getDecorators(d) ?? []) {
        const e = dec.expression;
        if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "Inject" && e.arguments[0]) {
          const key = this.keyOf(e.arguments[0]);
          if (key && this.bound.has(key)) return this.bound.get(key);
        }
      }
      // typed by a class that is itself a token (an abstract class bound with useClass)
      const typeSym = d.type ? this.checker.getTypeAtLocation(d.type).getSymbol() : undefined;
      const typeDecl = typeSym?.declarations?.find((x) => ts.isClassLike(x));
      if (typeDecl && this.bound.has(typeDecl)) return this.bound.get(typeDecl);
    }
    return undefined;
  }

  /** The implementation of `name` in a class or its base classes. */
  method(cls: ts.ClassLikeDeclaration, name: string): ts.FunctionLikeDeclaration | undefined {
    return implementationOf(this.checker, cls, name);
  }
}

function members(o: ts.ObjectLiteralExpression): Map<string, ts.Expression> {
  const out = new Map<string, ts.Expression>();
  for (const p of o.properties) {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) out.set(p.name.text, p.initializer);
    else if (ts.isShorthandPropertyAssignment(p)) out.set(p.name.text, p.name);
    else if (ts.isMethodDeclaration(p) && ts.isIdentifier(p.name)) out.set(p.name.text, p as unknown as ts.Expression);
  }
  return out;
}

/** Services registered in a container by name (awilix style: `container.register({ orderService:
 *  asClass(OrderService) })`, `register("orderService", asClass(OrderService))`), and by
 *  convention the application class whose name is the camel-cased name (`orderService` ->
 *  `OrderService`). `scope.resolve("orderService")` is an instance of that class. */
export class ContainerIndex {
  private registered = new Map<string, ts.ClassLikeDeclaration>();
  private byConvention = new Map<string, ts.ClassLikeDeclaration | null>();

  constructor(private checker: ts.TypeChecker, files: ReadonlyArray<ts.SourceFile>, isAppFile: (sf: ts.SourceFile) => boolean) {
    for (const f of files) {
      if (!isAppFile(f)) continue;
      this.visit(f, isAppFile);
    }
  }

  private visit(n: ts.Node, isAppFile: (sf: ts.SourceFile) => boolean): void {
    if (ts.isClassDeclaration(n) && n.name) {
      const key = n.name.text.charAt(0).toLowerCase() + n.name.text.slice(1);
      // two classes with one name: the convention cannot choose
      this.byConvention.set(key, this.byConvention.has(key) ? null : n);
    }
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && /^as(Class|Function)$/.test(n.expression.text) && n.arguments[0]) {
      const cls = this.appClass(n.arguments[0], isAppFile);
      const p = n.parent;
      let name: string | undefined;
      if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) name = p.name.text;
      else if (ts.isCallExpression(p) && p.arguments[1] === n && p.arguments[0] && ts.isStringLiteral(p.arguments[0])) name = p.arguments[0].text;
      else if (ts.isPropertyAccessExpression(p) && ts.isCallExpression(p.parent)) {
        // asClass(X).singleton() as the value
        const q = p.parent.parent;
        if (q && ts.isPropertyAssignment(q) && (ts.isIdentifier(q.name) || ts.isStringLiteral(q.name))) name = q.name.text;
      }
      if (cls && name && !this.registered.has(name)) this.registered.set(name, cls);
    }
    ts.forEachChild(n, (c) => this.visit(c, isAppFile));
  }

  private appClass(e: ts.Expression, isAppFile: (sf: ts.SourceFile) => boolean): ts.ClassLikeDeclaration | undefined {
    const found = this.checker.getSymbolAtLocation(stripParens(e));
    const sym = found && unalias(this.checker, found);
    const decl = sym?.declarations?.find((d) => ts.isClassLike(d));
    return decl && isAppFile(decl.getSourceFile()) ? (decl as ts.ClassLikeDeclaration) : undefined;
  }

  /** The class registered under a name, else the one the naming convention gives. */
  classOf(name: string): ts.ClassLikeDeclaration | undefined {
    return this.registered.get(name) ?? this.byConvention.get(name) ?? undefined;
  }
}

/** The buses of @nestjs/cqrs whose `execute(message)` runs the message's one handler. */
const CQRS_BUSES = new Set(["CommandBus", "QueryBus"]);
const CQRS_HANDLER_DECORATORS = new Set(["CommandHandler", "QueryHandler"]);

/** NestJS CQRS handlers: `commandBus.execute(new CreatePost(...))` runs the `execute` method of
 *  the class decorated `@CommandHandler(CreatePost)` (queries likewise), awaited, in the
 *  caller's transaction. A bus call whose message class has no handler in the application is
 *  left to the caller (an unresolved call). */
export class BusHandlerIndex {
  private handlers = new Map<ts.Symbol, ts.ClassDeclaration>();

  constructor(private checker: ts.TypeChecker, files: ReadonlyArray<ts.SourceFile>, isAppFile: (sf: ts.SourceFile) => boolean) {
    for (const f of files) if (isAppFile(f) && f.text.includes("Handler(")) this.visit(f);
  }

  private visit(n: ts.Node): void {
    if (ts.isClassDeclaration(n)) {
      for (const d of ts.getDecorators(n) ?? []) {
        const e = d.expression;
        if (!ts.isCallExpression(e) || !ts.isIdentifier(e.expression) || !CQRS_HANDLER_DECORATORS.has(e.expression.text)) continue;
        const message = e.arguments[0] && this.checker.getSymbolAtLocation(stripParens(e.arguments[0]));
        const sym = message && unalias(this.checker, message);
        if (sym && !this.handlers.has(sym)) this.handlers.set(sym, n);
      }
    }
    ts.forEachChild(n, (c) => this.visit(c));
  }

  /** Whether an origin (names.ts) is a bus's `execute`. */
  static isBusExecute(module: string, path: ReadonlyArray<string>): boolean {
    // an injected bus is an instance: `CommandBus.new.execute`
    if (module !== "@nestjs/cqrs" || !CQRS_BUSES.has(path[0])) return false;
    const rest = path.slice(1).join(".");
    return rest === "execute" || rest === "new.execute";
  }

  /** The handler method a bus call runs: by the class of its message (`new C(...)`, or its type). */
  handlerOf(call: ts.CallExpression): ts.FunctionLikeDeclaration | undefined {
    const arg = call.arguments[0] && stripParens(call.arguments[0]);
    if (!arg) return undefined;
    const named = ts.isNewExpression(arg) ? this.checker.getSymbolAtLocation(arg.expression) : this.checker.getTypeAtLocation(arg).getSymbol();
    const sym = named && unalias(this.checker, named);
    const cls = sym && this.handlers.get(sym);
    return cls ? implementationOf(this.checker, cls, "execute") : undefined;
  }
}
