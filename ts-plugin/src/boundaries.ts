// Transaction boundaries: where a transaction starts, what code runs inside it and how that
// code reaches the transaction's connection. Forms (TAXONOMY.md): `.transaction(cb)` on a
// DataSource/Connection/EntityManager (isolation level first or not), QueryRunner
// startTransaction() .. commitTransaction(), legacy @Transaction() with @TransactionManager()
// / @TransactionRepository(), typeorm-transactional's @Transactional() and runInTransaction(),
// and the application's own wrappers around any of these (`runInTransaction(fn)` helpers),
// which are reported at each call site with `wrapper` set. Request-context transactions
// (an app decorator whose interceptor starts the transaction) are recognised by
// request-context.ts and walked here as the decorated method.
import * as ts from "typescript";
import { Boundary } from "./ir";
import { enclosingFunction, endLineOf, lineOf, OriginResolver, qualifiedName, stripParens, unalias } from "./names";
import { packageOfFile } from "./stubs";
import { typeormExportName } from "./entities";
import { ISOLATION_PARAMETER } from "./catalog/request-context";
import { RequestContextIndex } from "./request-context";
import { calledDeclaration, CalleeNameFilter, declaredNames, libraryDeclaration, soleCallTarget } from "./callee-names";
import { mayResolveToOneOf } from "./signature-candidates";
import { isOwningFunction, SyntaxOutline } from "./syntax-outline";

/** context: a request-context decorator; only context-bound repositories are the transaction's.
 *  autocommit: one function outside any transaction (autocommit.ts); its calls into other
 *  application functions are not followed, every statement it issues is its own transaction. */
export type WalkMode = "callback" | "runner" | "decorator" | "cls" | "context" | "autocommit";

export interface BoundarySite {
  boundary: Boundary;
  mode: WalkMode;
  /** node whose position gives the transaction line */
  anchor: ts.Node;
  line: number;
  endLine: number;
  /** function holding the boundary (the transaction's `function`) */
  fn: ts.FunctionLikeDeclaration;
  /** callback run inside the transaction (callback/cls/wrapper forms) */
  body?: ts.Expression | ts.FunctionLikeDeclaration;
  /** which parameter of the callback receives what */
  bind: { index: number; as: "manager" | "runner" }[];
  /** QueryRunner form: the runner expression of startTransaction() */
  runner?: ts.Expression;
  options: Record<string, string>;
  wrapper: string | null;
  /** receiver of `.transaction` (to recognise nesting) */
  receiver?: ts.Expression;
  propagation?: string;
  /** a call of a runner factory: the transaction starts there and the result is its runner */
  startCall?: ts.CallExpression;
}

export interface WrapperInfo {
  fn: ts.FunctionLikeDeclaration;
  qualname: string;
  callbackIndex: number;
  /** other parameters that may carry the callback (overloads: `withTransaction(work)` and
   *  `withTransaction(ctx, work)`); a call site's function argument among them is the callback */
  altIndexes?: number[];
  bind: { index: number; as: "manager" | "runner" }[];
  boundary: Boundary;
  mode: WalkMode;
}

/** The argument of a wrapper call that is its callback. */
export function callbackArgIndex(w: WrapperInfo, call: ts.CallExpression): number {
  for (const i of [w.callbackIndex, ...(w.altIndexes ?? [])]) {
    const a = call.arguments[i];
    if (a && isFunctionLike(stripParens(a))) return i;
  }
  return w.callbackIndex;
}

const TRANSACTIONAL_MODULES = new Set([
  "typeorm-transactional", "typeorm-transactional-cls-hooked", "@nestjs-cls/transactional", "typeorm-transactional-cls",
]);

/** Propagations under which a @Transactional method opens (or joins) a transaction. */
export const JOINING_PROPAGATIONS = new Set(["REQUIRED", "SUPPORTS", "MANDATORY", "NESTED"]);
const OPENING_PROPAGATIONS = new Set(["REQUIRED", "REQUIRES_NEW", "NESTED"]);

/** `transactional` export name of a callee/decorator from a typeorm-transactional library. */
export function transactionalExport(checker: ts.TypeChecker, expr: ts.Expression): string | undefined {
  expr = stripParens(expr);
  const id = ts.isIdentifier(expr) ? expr : ts.isPropertyAccessExpression(expr) ? expr.name : undefined;
  if (!id) return undefined;
  const sym = checker.getSymbolAtLocation(id);
  const decl = sym?.declarations?.[0];
  if (decl && ts.isImportSpecifier(decl)) {
    const mod = (decl.parent.parent.parent as ts.ImportDeclaration).moduleSpecifier;
    if (ts.isStringLiteral(mod) && TRANSACTIONAL_MODULES.has(mod.text)) return (decl.propertyName ?? decl.name).text;
  }
  const target = sym && unalias(checker, sym);
  if (sym && !target) return undefined;
  const d = target?.declarations?.[0];
  if (d && TRANSACTIONAL_MODULES.has(packageOfFile(d.getSourceFile().fileName) ?? "")) return target!.name;
  return undefined;
}

function isFunctionLike(e: ts.Node | undefined): e is ts.FunctionLikeDeclaration {
  return !!e && isOwningFunction(e);
}

function optionText(e: ts.Expression): string {
  e = stripParens(e);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return e.getText();
}

function objectOptions(e: ts.Expression | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!e) return out;
  e = stripParens(e);
  if (!ts.isObjectLiteralExpression(e)) return out;
  for (const p of e.properties) {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
      out[p.name.text === "isolationLevel" ? "isolation" : p.name.text] = optionText(p.initializer);
    }
  }
  return out;
}

/** An expression without its parentheses and non-null assertions (`(work)!`). */
function stripNonNull(e: ts.Expression): ts.Expression {
  e = stripParens(e);
  while (ts.isNonNullExpression(e)) e = stripParens(e.expression);
  return e;
}

export class BoundaryFinder {
  readonly sites: BoundarySite[] = [];
  readonly wrappers = new Map<ts.Node, WrapperInfo>();
  /** functions that start a transaction committed elsewhere (`connection.startTransaction(ctx)`
   *  of a request-context app), and the functions they are nested in */
  readonly startHelpers = new Set<ts.Node>();
  /** @Transactional methods: declaration -> propagation */
  readonly transactional = new Map<ts.Node, string>();
  /** functions that start a QueryRunner transaction and return the runner: name */
  readonly runnerFactories = new Map<ts.Node, string>();
  /** boundaries whose extent cannot be followed statically (reported as dynamic-boundary) */
  readonly dynamic: { node: ts.Node; message: string }[] = [];

  /** request-context decorators and the transactional connection's repository accessors */
  readonly contexts: RequestContextIndex;

  private origins: OriginResolver;
  private callees: CalleeNameFilter;
  /** names the wrappers and runner factories are declared under (CalleeNameFilter) */
  private wrapperNames = new Set<string>();
  private factoryNames = new Set<string>();
  /** the callback positions of the wrappers found so far */
  private callbackIndexes = new Set<number>();
  /** every wrapper found so far is a method or a function declaration (none is a constructor,
   *  nor a function held by a variable a class could extend) */
  private wrappersAreDeclaredFunctions = true;
  /** the program uses a typeorm-transactional library (else no call can be one of its exports) */
  private usesTransactional: boolean;
  constructor(private checker: ts.TypeChecker, private rootDir: string, program?: ts.Program) {
    this.origins = new OriginResolver(checker);
    this.callees = new CalleeNameFilter(checker);
    this.usesTransactional = !program || program.getSourceFiles().some((sf) =>
      TRANSACTIONAL_MODULES.has(packageOfFile(sf.fileName) ?? "") || [...TRANSACTIONAL_MODULES].some((m) => sf.text.includes(m)));
    this.contexts = new RequestContextIndex(checker, (c) => this.isTransactionCall(c) || this.isRunnerMethod(c, "startTransaction"));
  }

  /** Is `.transaction` on this call TypeORM's (by type; by shape when the type is unknown)? */
  private isTransactionCall(call: ts.CallExpression): boolean {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "transaction" || call.arguments.length === 0) return false;
    const sig = this.checker.getResolvedSignature(call);
    const decl = sig?.declaration;
    if (decl && !ts.isJSDocSignature(decl)) {
      const pkg = packageOfFile(decl.getSourceFile().fileName);
      if (pkg === "typeorm") return true;
      if (pkg) return false; // another library's transaction (knex, sequelize, prisma)
      if (!decl.getSourceFile().isDeclarationFile) return false; // the app's own method
    }
    const recvType = this.checker.getTypeAtLocation(callee.expression);
    if (!(recvType.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) return false;
    // untyped receiver: reject values that come from another library (knex, sequelize, ...)
    const origin = this.origins.ofExpression(callee.expression);
    if (origin && origin.module !== "<global>" && !/^(typeorm|@nestjs\/typeorm|typeorm-transactional.*)$/.test(origin.module) && !origin.module.startsWith(".")) return false;
    const last = stripParens(call.arguments[call.arguments.length - 1]);
    return ts.isArrowFunction(last) || ts.isFunctionExpression(last);
  }

  private isRunnerMethod(call: ts.CallExpression, name: string): boolean {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== name) return false;
    const sig = this.checker.getResolvedSignature(call);
    const decl = sig?.declaration;
    if (decl && !ts.isJSDocSignature(decl)) {
      const pkg = packageOfFile(decl.getSourceFile().fileName);
      if (pkg === "typeorm") return true;
      if (pkg || !decl.getSourceFile().isDeclarationFile) return false;
    }
    const t = this.checker.getTypeAtLocation(callee.expression);
    return !!(t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown));
  }

  /** `outline`: the files' calls and functions (syntax-outline.ts), when the caller has them. */
  find(files: ts.SourceFile[], outline: SyntaxOutline = SyntaxOutline.of(files)): void {
    // Pass 1: direct boundaries and wrappers.
    for (const n of outline.callsAndMethods) this.visit(n);
    // Pass 1b: wrappers that start the transaction through a helper and run a callback in it,
    // then wrappers that hand their callback on to a wrapper.
    this.findContextWrappers(outline);
    this.findChainedWrappers(outline);
    // Pass 2: call sites of wrappers.
    if (this.wrappers.size || this.runnerFactories.size) for (const call of outline.calls) this.visitWrapperCall(call);
    this.dropNested();
    // a start inside a transaction decorator's interceptor is reported at each decorated method
    const kept = this.dynamic.filter((d) => !this.contexts.starts.has(d.node));
    this.dynamic.length = 0;
    this.dynamic.push(...kept);
  }

  /** A call or method of pass 1. */
  private visit(node: ts.CallExpression | ts.MethodDeclaration): void {
    if (ts.isCallExpression(node)) {
      if (this.isTransactionCall(node)) this.addCallback(node);
      else if (this.isRunnerMethod(node, "startTransaction")) this.addRunner(node);
      else if (this.usesTransactional && transactionalExport(this.checker, node.expression) === "runInTransaction") this.addRunInTransaction(node);
    }
    if (ts.isMethodDeclaration(node) && node.body) this.addDecorated(node);
  }

  private callbackOf(arg: ts.Expression | undefined): ts.Expression | ts.FunctionLikeDeclaration | undefined {
    if (!arg) return undefined;
    let e = stripParens(arg);
    // this.work.bind(this)
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === "bind") e = e.expression.expression;
    if (isFunctionLike(e)) return e;
    return e;
  }

  private paramIndexOf(fn: ts.FunctionLikeDeclaration, e: ts.Expression): number {
    e = stripParens(e);
    if (!ts.isIdentifier(e)) return -1;
    const sym = this.checker.getSymbolAtLocation(e);
    return fn.parameters.findIndex((p) => ts.isIdentifier(p.name) && this.checker.getSymbolAtLocation(p.name) === sym);
  }

  /** Inside `region`, a call of a parameter of `fn`: the wrapper's callback invocation. */
  private paramCall(region: ts.Node, fn: ts.FunctionLikeDeclaration): { call: ts.CallExpression; index: number } | undefined {
    let found: { call: ts.CallExpression; index: number } | undefined;
    const visit = (n: ts.Node) => {
      if (found) return;
      if (ts.isCallExpression(n)) {
        const idx = this.paramIndexOf(fn, n.expression);
        if (idx >= 0) {
          found = { call: n, index: idx };
          return;
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(region);
    return found;
  }

  private registerWrapper(fn: ts.FunctionLikeDeclaration, info: Omit<WrapperInfo, "fn" | "qualname">): void {
    if (this.wrappers.has(fn)) return;
    this.wrappers.set(fn, { fn, qualname: qualifiedName(this.rootDir, fn), ...info });
    this.callbackIndexes.add(info.callbackIndex);
    this.wrappersAreDeclaredFunctions &&= ts.isMethodDeclaration(fn) || ts.isFunctionDeclaration(fn);
    for (const n of declaredNames(fn)) this.wrapperNames.add(n);
  }

  private addCallback(call: ts.CallExpression): void {
    const fn = enclosingFunction(call);
    if (!fn) return;
    const args = call.arguments;
    const options: Record<string, string> = {};
    if (args.length >= 2) options.isolation = optionText(args[0]);
    const body = this.callbackOf(args[args.length - 1]);
    const anchor = (call.expression as ts.PropertyAccessExpression).name;
    // Wrapper: the callback is (or calls) a parameter of the enclosing function.
    if (body && !isFunctionLike(body)) {
      const idx = this.paramIndexOf(fn, body as ts.Expression);
      if (idx >= 0) {
        this.registerWrapper(fn, { callbackIndex: idx, bind: [{ index: 0, as: "manager" }], boundary: "transaction-callback", mode: "callback" });
        return;
      }
    }
    if (body && isFunctionLike(body)) {
      const inner = this.paramCall(body, fn);
      if (inner) {
        const mgr = body.parameters[0];
        const mgrSym = mgr && ts.isIdentifier(mgr.name) ? this.checker.getSymbolAtLocation(mgr.name) : undefined;
        const bind = inner.call.arguments
          .map((a, i) => ({ a: stripParens(a), i }))
          .filter(({ a }) => ts.isIdentifier(a) && mgrSym && this.checker.getSymbolAtLocation(a) === mgrSym)
          .map(({ i }) => ({ index: i, as: "manager" as const }));
        // only a call that hands the transaction's manager on makes a wrapper (not resolve())
        if (bind.length > 0) {
          this.registerWrapper(fn, { callbackIndex: inner.index, bind, boundary: "transaction-callback", mode: "callback" });
          return;
        }
      }
    }
    this.sites.push({
      boundary: "transaction-callback", mode: "callback", anchor, line: lineOf(anchor), endLine: endLineOf(call), fn,
      body, bind: [{ index: 0, as: "manager" }], options, wrapper: null, receiver: (call.expression as ts.PropertyAccessExpression).expression,
    });
  }

  private addRunner(call: ts.CallExpression): void {
    const fn = enclosingFunction(call);
    if (!fn || !fn.body) return;
    const runner = (call.expression as ts.PropertyAccessExpression).expression;
    const options: Record<string, string> = {};
    if (call.arguments[0]) options.isolation = optionText(call.arguments[0]);
    const inner = this.paramCall(fn.body, fn);
    if (inner) {
      const bind: { index: number; as: "manager" | "runner" }[] = [];
      inner.call.arguments.forEach((a, i) => {
        const s = stripParens(a);
        if (ts.isPropertyAccessExpression(s) && s.name.text === "manager") bind.push({ index: i, as: "manager" });
        else if (s.getText() === runner.getText()) bind.push({ index: i, as: "runner" });
      });
      if (bind.length > 0) {
        this.registerWrapper(fn, { callbackIndex: inner.index, bind, boundary: "query-runner", mode: "callback" });
        return;
      }
    }
    // Started here but committed elsewhere (a request-context transaction, a start helper):
    // the work is not in this function, so there is nothing to follow from here.
    const runnerText = runner.getText();
    let commits = false;
    const findCommit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && /^(commit|rollback)Transaction$/.test(n.expression.name.text) &&
          n.expression.expression.getText() === runnerText) commits = true;
      else ts.forEachChild(n, findCommit);
    };
    findCommit(fn.body);
    if (!commits && this.returnsRunner(fn, runnerText)) {
      // A runner factory (`startTransaction(); return queryRunner;`): the caller does the work
      // and commits; each call site is a transaction.
      this.runnerFactories.set(fn, qualifiedName(this.rootDir, fn));
      for (const n of declaredNames(fn)) this.factoryNames.add(n);
      return;
    }
    if (!commits) {
      this.dynamic.push({ node: call, message: `startTransaction() on \`${runnerText}\` is committed elsewhere; the transaction's work is not followed from here` });
      return;
    }
    // end: the commit (or the function's end when it is never committed here)
    let endLine = endLineOf(fn);
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "commitTransaction" && n.pos > call.pos) {
        endLine = Math.min(endLine, lineOf(n));
      }
      ts.forEachChild(n, visit);
    };
    visit(fn.body);
    this.sites.push({
      boundary: "query-runner", mode: "runner", anchor: call, line: lineOf(call), endLine, fn, bind: [], runner, options, wrapper: null,
    });
  }

  /** A function that starts a transaction through a helper (a function whose
   *  `startTransaction()` is committed elsewhere), commits it, and calls a callback parameter in
   *  between is a wrapper (vendure's `TransactionWrapper.executeInTransaction(ctx, work)`). The
   *  callback gets a context, not the manager: it runs in request-context mode. */
  private findContextWrappers(outline: SyntaxOutline): void {
    const starters = this.startHelpers;
    for (const d of this.dynamic) {
      // the function holding the start, and the functions it is nested in (a local
      // `attemptStart()` retried by its method)
      for (let fn = enclosingFunction(d.node); fn; fn = enclosingFunction(fn)) starters.add(fn);
    }
    if (starters.size === 0) return;
    const used = new Set<ts.Node>();
    const starterNames = new Set([...starters].flatMap((s) => declaredNames(s)));
    const owned = outline.callsByOwner();
    for (const fn of outline.functions) {
      if (this.wrappers.has(fn)) continue;
      // the calls of its body (not of nested functions) that may reach a starter, in order;
      // resolved (a first signature resolution is the costly part) only in a function that
      // commits and calls a parameter, the only one where a start makes it a wrapper
      const calls = owned.get(fn) ?? [];
      const commits = calls.some((c) => ts.isPropertyAccessExpression(c.expression) && c.expression.name.text === "commitTransaction");
      const candidates = commits ? calls.filter((c) => this.callees.mayCall(c, starterNames)) : [];
      const inner = candidates.length ? this.paramCall(fn.body!, fn) : undefined;
      const start = inner ? this.firstStarterCalled(candidates, starters) : undefined;
      if (start && inner) {
        this.registerWrapper(fn, { callbackIndex: inner.index, bind: [], boundary: "query-runner", mode: "context" });
        used.add(start);
      }
    }
    // the helper's start is part of each wrapper's transactions
    const startedBy = (n: ts.Node): boolean => {
      for (let fn = enclosingFunction(n); fn; fn = enclosingFunction(fn)) if (used.has(fn)) return true;
      return false;
    };
    const kept = this.dynamic.filter((d) => !startedBy(d.node));
    this.dynamic.length = 0;
    this.dynamic.push(...kept);
  }

  /** The starter the first of `calls` (in order) calls, if any. */
  private firstStarterCalled(calls: readonly ts.CallExpression[], starters: ReadonlySet<ts.Node>): ts.Node | undefined {
    for (const call of calls) {
      const decl = this.declarationOf(call);
      if (decl && starters.has(decl)) return decl;
    }
    return undefined;
  }

  /** A function that passes its callback parameter (directly, or through a local variable
   *  assigned from parameters) as the callback of a wrapper is a wrapper of the same kind. */
  private findChainedWrappers(outline: SyntaxOutline): void {
    for (let round = 0; round < 3; round++) {
      let added = false;
      for (const n of outline.calls) {
        // which wrapper a call invokes is asked (a signature resolution) only where the answer
        // can make its function a wrapper: outside one, with a plain name (parameterSources)
        // at some wrapper's callback position
        if (!this.mayPassCallbackOn(n)) continue;
        const w = this.wrapperOf(n);
        const fn = w && enclosingFunction(n);
        if (w && fn && fn !== w.fn && !this.wrappers.has(fn)) {
          const arg = n.arguments[w.callbackIndex];
          const idx = arg ? this.parameterSources(fn, arg) : [];
          if (idx.length) {
            const last = idx[idx.length - 1];
            this.registerWrapper(fn, { callbackIndex: last, altIndexes: idx.filter((i) => i !== last), bind: w.bind, boundary: w.boundary, mode: w.mode });
            added = true;
          }
        }
      }
      if (!added) break;
    }
  }

  /** Whether a call could hand its function's callback parameter on to a wrapper (a necessary
   *  condition of findChainedWrappers, read off the syntax): it is inside a function that is
   *  not a wrapper yet, and an argument at some wrapper's callback position is a name. */
  private mayPassCallbackOn(call: ts.CallExpression): boolean {
    const fn = enclosingFunction(call);
    if (!fn || this.wrappers.has(fn)) return false;
    for (const index of this.callbackIndexes) {
      const arg = call.arguments[index];
      if (arg && ts.isIdentifier(stripNonNull(arg))) return true;
    }
    return false;
  }

  /** Parameters of `fn` an expression is (a parameter, or a local `let` assigned only from parameters). */
  private parameterSources(fn: ts.FunctionLikeDeclaration, e: ts.Expression): number[] {
    e = stripNonNull(e);
    const direct = this.paramIndexOf(fn, e);
    if (direct >= 0) return [direct];
    if (!ts.isIdentifier(e) || !fn.body) return [];
    const sym = this.checker.getSymbolAtLocation(e);
    const decl = sym?.valueDeclaration;
    if (!decl || !ts.isVariableDeclaration(decl) || enclosingFunction(decl) !== fn) return [];
    const out = new Set<number>();
    let other = false;
    const rhs: ts.Expression[] = decl.initializer ? [decl.initializer] : [];
    const visit = (n: ts.Node): void => {
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(n.left) && this.checker.getSymbolAtLocation(n.left) === sym) rhs.push(n.right);
      ts.forEachChild(n, visit);
    };
    visit(fn.body);
    for (let r of rhs) {
      r = stripParens(r);
      while (ts.isNonNullExpression(r)) r = stripParens(r.expression);
      const i = this.paramIndexOf(fn, r);
      if (i >= 0) out.add(i);
      else other = true;
    }
    return other ? [] : [...out].sort((a, b) => a - b);
  }

  private addRunInTransaction(call: ts.CallExpression): void {
    const fn = enclosingFunction(call);
    if (!fn) return;
    const body = this.callbackOf(call.arguments[0]);
    const options: Record<string, string> = { library: "typeorm-transactional", ...objectOptions(call.arguments[1]) };
    const propagation = options.propagation ?? "REQUIRED";
    if (!OPENING_PROPAGATIONS.has(propagation)) return;
    this.sites.push({
      boundary: "transaction-callback", mode: "cls", anchor: call.expression, line: lineOf(call.expression), endLine: endLineOf(call), fn, body,
      bind: [], options, wrapper: null, propagation,
    });
  }

  private addDecorated(m: ts.MethodDeclaration): void {
    for (const d of ts.getDecorators(m) ?? []) {
      const e = d.expression;
      const callee = ts.isCallExpression(e) ? e.expression : e;
      const args = ts.isCallExpression(e) ? e.arguments : ([] as unknown as ts.NodeArray<ts.Expression>);
      if (typeormExportName(this.checker, callee) === "Transaction") {
        const bind: { index: number; as: "manager" | "runner" }[] = [];
        const options: Record<string, string> = {};
        const a0 = args[0] ? stripParens(args[0]) : undefined;
        if (a0 && ts.isObjectLiteralExpression(a0)) Object.assign(options, objectOptions(a0));
        else if (a0) options.connection = optionText(a0);
        this.sites.push({
          boundary: "transaction-decorator", mode: "decorator", anchor: d, line: lineOf(d), endLine: endLineOf(m), fn: m, bind, options, wrapper: null,
        });
        return;
      }
      if (transactionalExport(this.checker, callee) === "Transactional") {
        const options = objectOptions(args[0]);
        const propagation = options.propagation ?? "REQUIRED";
        this.transactional.set(m, propagation);
        if (!OPENING_PROPAGATIONS.has(propagation)) return; // SUPPORTS/MANDATORY/NEVER/NOT_SUPPORTED open none
        this.sites.push({
          boundary: "transactional-decorator", mode: "cls", anchor: d, line: lineOf(d), endLine: endLineOf(m), fn: m, bind: [], options,
          wrapper: null, propagation,
        });
        return;
      }
      const impl = this.contexts.transactionDecorator(d);
      if (impl) {
        this.sites.push({
          boundary: "transaction-decorator", mode: "context", anchor: d, line: lineOf(d), endLine: endLineOf(m), fn: m, bind: [],
          options: this.decoratorOptions(impl, args), wrapper: qualifiedName(this.rootDir, impl),
        });
        return;
      }
    }
  }

  /** Arguments of an app decorator as written, named by its parameters (isolation levels as
   *  `isolation`): `@Transaction('manual')` -> {transactionMode: "manual"}. */
  private decoratorOptions(impl: ts.FunctionLikeDeclaration, args: ts.NodeArray<ts.Expression>): Record<string, string> {
    const out: Record<string, string> = {};
    args.forEach((a, i) => {
      const p = impl.parameters[i];
      if (!p || !ts.isIdentifier(p.name) || p.dotDotDotToken) return;
      out[ISOLATION_PARAMETER.test(p.name.text) ? "isolation" : p.name.text] = optionText(a);
    });
    return out;
  }

  private returnsRunner(fn: ts.FunctionLikeDeclaration, runnerText: string): boolean {
    let found = false;
    const visit = (n: ts.Node) => {
      if (ts.isReturnStatement(n) && n.expression && stripParens(n.expression).getText() === runnerText) found = true;
      else if (!ts.isFunctionLike(n) || n === fn) ts.forEachChild(n, visit);
    };
    visit(fn);
    return found;
  }

  private declarationOf(call: ts.CallExpression): ts.Node | undefined {
    return calledDeclaration(this.checker, call);
  }

  /** The wrapper a call invokes, if any. */
  wrapperOf(call: ts.CallExpression): WrapperInfo | undefined {
    if (!this.callees.mayCall(call, this.wrapperNames)) return undefined;
    // `super(...)` runs a base constructor (or a value standing for the base class): while every
    // wrapper is a method or a function declaration, it calls none, and its signature (typing
    // the base constructor's arguments) is not worth resolving (vendure's core: 236 of the 809
    // calls the name filter keeps)
    if (call.expression.kind === ts.SyntaxKind.SuperKeyword && this.wrappersAreDeclaredFunctions) return undefined;
    // the signature is resolved (every argument typed) only when the callee's type has one a
    // wrapper declares (signature-candidates.ts)
    const decl = soleCallTarget(this.checker, call) ?? libraryDeclaration(this.checker, call) ??
      (mayResolveToOneOf(this.checker, call, this.wrappers) ? this.checker.getResolvedSignature(call)?.declaration : undefined);
    if (decl && this.wrappers.has(decl)) return this.wrappers.get(decl);
    const found = this.checker.getSymbolAtLocation(stripParens(call.expression));
    const sym = found && unalias(this.checker, found);
    if (found && !sym) return undefined;
    for (const d of sym?.declarations ?? []) {
      if (this.wrappers.has(d)) return this.wrappers.get(d);
      if (ts.isVariableDeclaration(d) && d.initializer && this.wrappers.has(stripParens(d.initializer))) return this.wrappers.get(stripParens(d.initializer));
    }
    return undefined;
  }

  /** A call of a runner factory or of a wrapper: a transaction of its caller. */
  private visitWrapperCall(node: ts.CallExpression): void {
    if (this.runnerFactories.size && this.callees.mayCall(node, this.factoryNames)) {
      const decl = this.declarationOf(node);
      const factory = decl ? this.runnerFactories.get(decl) : undefined;
      const fn = enclosingFunction(node);
      if (factory && fn && fn !== decl && fn.body) {
        const anchor = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
        let endLine = endLineOf(fn);
        const visit = (n: ts.Node) => {
          if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "commitTransaction" && n.pos > node.pos) {
            endLine = Math.min(endLine, lineOf(n));
          }
          ts.forEachChild(n, visit);
        };
        visit(fn.body);
        this.sites.push({
          boundary: "query-runner", mode: "runner", anchor, line: lineOf(anchor), endLine, fn, bind: [], options: {}, wrapper: factory,
          startCall: node,
        });
      }
    }
    const w = this.wrapperOf(node);
    const fn = enclosingFunction(node);
    const enhancer = fn && ts.isClassLike(fn.parent) && this.contexts.isTransactionEnhancer(fn.parent);
    if (w && fn && fn !== w.fn && !this.wrappers.has(fn) && !enhancer) {
      const body = this.callbackOf(node.arguments[callbackArgIndex(w, node)]);
      const anchor = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      this.sites.push({
        boundary: w.boundary, mode: w.mode, anchor, line: lineOf(anchor), endLine: endLineOf(node), fn, body, bind: w.bind,
        options: {}, wrapper: w.qualname, receiver: undefined,
      });
    }
  }

  /** A `.transaction()` on the manager of an enclosing transaction callback is a savepoint of
   *  that transaction, not a transaction of its own (as with nested Django atomic blocks). */
  private dropNested(): void {
    const managerParams = new Map<ts.Symbol, BoundarySite>();
    for (const s of this.sites) {
      if (s.body && isFunctionLike(s.body)) {
        for (const b of s.bind) {
          const p = s.body.parameters[b.index];
          const sym = p && ts.isIdentifier(p.name) ? this.checker.getSymbolAtLocation(p.name) : undefined;
          if (sym) managerParams.set(sym, s);
        }
      }
    }
    const rootSym = (e: ts.Expression | undefined): ts.Symbol | undefined => {
      while (e) {
        e = stripParens(e);
        if (ts.isIdentifier(e)) return this.checker.getSymbolAtLocation(e);
        if (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) e = e.expression;
        else return undefined;
      }
      return undefined;
    };
    const nested = (s: BoundarySite): boolean => {
      if (s.receiver) {
        const sym = rootSym(s.receiver);
        if (sym && managerParams.has(sym) && managerParams.get(sym) !== s) return true;
      }
      if (s.wrapper && ts.isCallExpression(s.anchor.parent.kind === ts.SyntaxKind.CallExpression ? s.anchor.parent : s.anchor.parent.parent)) {
        const call = (ts.isCallExpression(s.anchor.parent) ? s.anchor.parent : s.anchor.parent.parent) as ts.CallExpression;
        for (const a of call.arguments) {
          const sym = rootSym(a);
          if (sym && managerParams.has(sym) && managerParams.get(sym) !== s) return true;
        }
      }
      return false;
    };
    const kept = this.sites.filter((s) => !nested(s));
    this.sites.length = 0;
    this.sites.push(...kept);
  }

  functionName(fn: ts.FunctionLikeDeclaration): string {
    return qualifiedName(this.rootDir, fn);
  }
}
