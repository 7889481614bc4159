// Request-context transactions (REAL_PATTERNS.md, "Where transactions start"): NestJS apps
// such as vendure put an app-defined `@Transaction()` on a resolver/controller method. The
// decorator applies an interceptor that starts a QueryRunner transaction and stores the runner
// in the request context; services then call `connection.getRepository(ctx, Entity)` on the
// app's "transactional connection", and the repository they get is bound to that transaction
// because `ctx` carries it. Nothing at the call sites says "transaction", so both halves are
// recognised semantically:
//  - a decorator is a boundary when its implementation (resolved through the checker) applies
//    an interceptor/guard whose code, followed through the app's own calls, starts a TypeORM
//    transaction (startTransaction() / .transaction(cb));
//  - an accessor is context-bound when it is a method of an app class that wraps a DataSource/
//    EntityManager, returns a Repository, and takes a context object before the entity target.
import * as ts from "typescript";
import {
  DECORATOR_COMBINATORS, HANDLER_ENHANCERS, START_SEARCH_DEPTH, TRANSACTION_CLASS_NAME, TRANSACTION_IMPORTS,
} from "./catalog/request-context";
import { HandleTypes } from "./handles";
import { implementationByName, overloadByArity } from "./callee-names";
import { calleeNameNode, OriginResolver, stripParens, unalias } from "./names";
import { packageOfFile } from "./stubs";

export interface RepositoryAccessor {
  /** index of the context argument (-1: the overload without one, not transaction-bound) */
  ctx: number;
  /** index of the entity target argument */
  target: number;
}

function isAppSource(sf: ts.SourceFile): boolean {
  return !sf.isDeclarationFile && !packageOfFile(sf.fileName);
}

export class RequestContextIndex {
  /** startTransaction()/transaction() calls reached from a transaction decorator's enhancer:
   *  their transaction is reported at each decorated method, not as a dynamic boundary */
  readonly starts = new Set<ts.Node>();
  private decorators = new Map<ts.Node, boolean>();
  private classes = new Map<ts.Node, boolean>();
  /** function -> result, and the search depth left when it was computed */
  private functions = new Map<ts.Node, { found: boolean; budget: number }>();
  private connections = new Map<ts.Node, boolean>();
  private accessors = new Map<ts.Node, RepositoryAccessor | null>();
  private origins: OriginResolver;

  constructor(private checker: ts.TypeChecker, private isStart: (call: ts.CallExpression) => boolean) {
    this.origins = new OriginResolver(checker);
  }

  // ------------------------------------------------------------ the boundary

  /** The app function implementing a method decorator (`@Transaction()` -> the exported
   *  arrow/function), when it is a request-context transaction boundary. */
  transactionDecorator(d: ts.Decorator): ts.FunctionLikeDeclaration | undefined {
    const e = d.expression;
    const callee = ts.isCallExpression(e) ? e.expression : e;
    const fn = this.appFunction(callee);
    if (!fn) return undefined;
    if (!this.decorators.has(fn)) {
      this.decorators.set(fn, false); // recursion guard
      this.decorators.set(fn, this.appliesTransactionEnhancer(fn));
    }
    return this.decorators.get(fn) ? fn : undefined;
  }

  /** Does the decorator's body apply (UseInterceptors/UseGuards, possibly inside
   *  applyDecorators) a class whose code starts a transaction? */
  private appliesTransactionEnhancer(fn: ts.FunctionLikeDeclaration): boolean {
    let found = false;
    const visit = (n: ts.Node) => {
      if (found) return;
      if (ts.isCallExpression(n)) {
        const o = this.origins.ofExpression(n.expression);
        if (o && o.path.length === 1 && HANDLER_ENHANCERS[o.module]?.has(o.path[0])) {
          for (const a of n.arguments) if (this.enhancerStarts(a)) found = true;
        } else if (!(o && o.path.length === 1 && DECORATOR_COMBINATORS[o.module]?.has(o.path[0]))) {
          // another app decorator combined into this one (`applyDecorators(Tx(), Other())`)
          const inner = this.appFunction(n.expression);
          if (inner && inner !== fn && this.isDecoratorFactory(inner) && this.transactionDecoratorFn(inner)) found = true;
        }
      }
      ts.forEachChild(n, visit);
    };
    if (fn.body) visit(fn.body);
    return found;
  }

  private transactionDecoratorFn(fn: ts.FunctionLikeDeclaration): boolean {
    if (!this.decorators.has(fn)) {
      this.decorators.set(fn, false);
      this.decorators.set(fn, this.appliesTransactionEnhancer(fn));
    }
    return this.decorators.get(fn)!;
  }

  /** Only functions that use a Nest enhancer or combinator are followed as decorators. */
  private isDecoratorFactory(fn: ts.FunctionLikeDeclaration): boolean {
    return !!fn.body && /\b(UseInterceptors|UseGuards|applyDecorators)\b/.test(fn.body.getText());
  }

  /** Whether a class is the interceptor/guard of a transaction decorator (its transactions
   *  are reported at each decorated method). */
  isTransactionEnhancer(cls: ts.Node): boolean {
    return this.classes.get(cls) === true;
  }

  /** An interceptor/guard class (given by name) whose code starts a transaction. */
  private enhancerStarts(arg: ts.Expression): boolean {
    const cls = this.appClass(arg);
    if (!cls) return false;
    if (this.classes.has(cls)) return this.classes.get(cls)!;
    this.classes.set(cls, false);
    let found = false;
    for (const m of cls.members) {
      if ((ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m)) && m.body && this.startsTransaction(m, START_SEARCH_DEPTH)) found = true;
    }
    // fallback when the start is out of reach: a class named like a transaction whose module
    // imports TypeORM's runner/data source types
    if (!found && cls.name && TRANSACTION_CLASS_NAME.test(cls.name.text)) found = this.importsTypeormTransactionTypes(cls.getSourceFile());
    this.classes.set(cls, found);
    return found;
  }

  private importsTypeormTransactionTypes(sf: ts.SourceFile): boolean {
    return sf.statements.some((s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === "typeorm" &&
      !!s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings) &&
      s.importClause.namedBindings.elements.some((el) => TRANSACTION_IMPORTS.has((el.propertyName ?? el.name).text)));
  }

  /** Does `fn` (or an app function it calls, up to `budget` levels) start a transaction? */
  private startsTransaction(fn: ts.FunctionLikeDeclaration, budget: number): boolean {
    const known = this.functions.get(fn);
    if (known && (known.found || known.budget >= budget)) return known.found;
    this.functions.set(fn, { found: false, budget }); // recursion guard
    let found = false;
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n)) {
        if (this.isStart(n)) {
          this.starts.add(n);
          found = true;
        } else if (budget > 0) {
          const callee = this.calledFunction(n);
          if (callee && callee !== fn && this.startsTransaction(callee, budget - 1)) found = true;
        }
      }
      ts.forEachChild(n, visit);
    };
    if (fn.body) visit(fn.body);
    this.functions.set(fn, { found, budget });
    return found;
  }

  private calledFunction(call: ts.CallExpression): ts.FunctionLikeDeclaration | undefined {
    const name = calleeNameNode(call);
    const implementation = name && implementationByName(this.checker, name);
    if (implementation) return this.asAppFunction(implementation);
    const sig = this.checker.getResolvedSignature(call);
    let decl: ts.Node | undefined = sig?.declaration && !ts.isJSDocSignature(sig.declaration) ? sig.declaration : undefined;
    if (decl && ts.isFunctionLike(decl) && !(decl as ts.FunctionLikeDeclaration).body) {
      // an overload: the implementation
      const sym = (decl as ts.FunctionLikeDeclaration).name ? this.checker.getSymbolAtLocation((decl as ts.FunctionLikeDeclaration).name!) : undefined;
      decl = sym?.declarations?.find((x) => ts.isFunctionLike(x) && !!(x as ts.FunctionLikeDeclaration).body);
    }
    if (!decl) return this.appFunction(call.expression);
    return this.asAppFunction(decl);
  }

  private symbolDeclaration(e: ts.Expression): ts.Declaration | undefined {
    e = stripParens(e);
    const found = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
    const sym = found && unalias(this.checker, found);
    return sym?.valueDeclaration ?? sym?.declarations?.[0];
  }

  private appFunction(e: ts.Expression): ts.FunctionLikeDeclaration | undefined {
    const decl = this.symbolDeclaration(e);
    return decl ? this.asAppFunction(decl) : undefined;
  }

  private asAppFunction(decl: ts.Node): ts.FunctionLikeDeclaration | undefined {
    if (ts.isVariableDeclaration(decl) && decl.initializer) decl = stripParens(decl.initializer);
    if (!(ts.isFunctionDeclaration(decl) || ts.isArrowFunction(decl) || ts.isFunctionExpression(decl) || ts.isMethodDeclaration(decl))) return undefined;
    if (!decl.body || !isAppSource(decl.getSourceFile())) return undefined;
    return decl;
  }

  private appClass(e: ts.Expression): ts.ClassDeclaration | undefined {
    const decl = this.symbolDeclaration(e);
    return decl && ts.isClassDeclaration(decl) && isAppSource(decl.getSourceFile()) ? decl : undefined;
  }

  // ------------------------------------------------------------ the repositories

  /** `connection.getRepository(ctx, Entity)`: which arguments are the context and the target,
   *  when the called method is a repository accessor of a transactional connection class. */
  repositoryAccessor(call: ts.CallExpression, handles: HandleTypes): RepositoryAccessor | undefined {
    // The member's declarations first (no inference over the arguments): resolving the
    // signature of every method call the walk meets costs more than the rest of the walk.
    const callee = stripParens(call.expression);
    const member = ts.isPropertyAccessExpression(callee) ? this.checker.getSymbolAtLocation(callee.name) : undefined;
    // a member the checker cannot name (its receiver is `any` or lacks it): no signature
    // declares it, and resolving one would type every argument for nothing
    if (ts.isPropertyAccessExpression(callee) && !member) return undefined;
    if (member?.declarations?.length && !member.declarations.some((d) => ts.isMethodDeclaration(d) && ts.isClassDeclaration(d.parent) &&
        isAppSource(d.getSourceFile()) && this.isTransactionalConnection(d.parent, handles))) return undefined;
    // the declaration the signature resolves to, when the callee's declarations and the argument
    // count decide it: known once the first call resolved to it
    const declared = member?.declarations?.length === 1 ? member.declarations[0] : overloadByArity(this.checker, call);
    if (declared && this.accessors.has(declared)) return this.accessors.get(declared) ?? undefined;
    const sig = this.checker.getResolvedSignature(call);
    const decl = sig?.declaration;
    if (!sig || !decl || ts.isJSDocSignature(decl) || !ts.isMethodDeclaration(decl)) return undefined;
    if (this.accessors.has(decl)) return this.accessors.get(decl) ?? undefined;
    let result: RepositoryAccessor | null = null;
    const cls = decl.parent;
    if (ts.isClassDeclaration(cls) && isAppSource(cls.getSourceFile()) && this.isTransactionalConnection(cls, handles) &&
        handles.of(this.checker.getReturnTypeOfSignature(sig))?.kind === "repo") {
      const ctx = decl.parameters.findIndex((p) => this.isContextType(this.checker.getTypeAtLocation(p)));
      // the context comes before the target; an overload without one reads outside any transaction
      result = ctx >= 0 && ctx + 1 < decl.parameters.length ? { ctx, target: ctx + 1 } : decl.parameters.length ? { ctx: -1, target: 0 } : null;
    }
    this.accessors.set(decl, result);
    return result ?? undefined;
  }

  /** An app class holding a TypeORM DataSource/EntityManager (property, constructor parameter
   *  property or getter): the repositories it hands out run on that connection. */
  private isTransactionalConnection(cls: ts.ClassDeclaration, handles: HandleTypes): boolean {
    if (this.connections.has(cls)) return this.connections.get(cls)!;
    const holders: ts.Node[] = [];
    for (const m of cls.members) {
      if (ts.isPropertyDeclaration(m) || ts.isGetAccessorDeclaration(m)) holders.push(m.name);
      if (ts.isConstructorDeclaration(m)) {
        for (const p of m.parameters) if (ts.getModifiers(p)?.length) holders.push(p.name);
      }
    }
    const found = holders.some((n) => {
      const k = handles.of(this.checker.getTypeAtLocation(n))?.kind;
      return k === "datasource" || k === "manager";
    });
    this.connections.set(cls, found);
    return found;
  }

  /** A request context: an instance of an app class/interface (possibly `| undefined`) that is
   *  neither a constructor (entity target) nor a string. */
  private isContextType(t: ts.Type): boolean {
    const parts = t.isUnion() ? t.types : [t];
    let seen = false;
    for (const p of parts) {
      if (p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)) continue;
      if (!(p.flags & ts.TypeFlags.Object) || p.getConstructSignatures().length || p.getCallSignatures().length) return false;
      const d = (p.getSymbol() ?? p.aliasSymbol)?.declarations?.[0];
      if (!d || !(ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d)) || !isAppSource(d.getSourceFile())) return false;
      seen = true;
    }
    return seen;
  }
}
