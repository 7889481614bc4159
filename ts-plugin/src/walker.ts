// The data-flow walk of one transaction: executes the transaction body abstractly, in order,
// following the application's own functions (bounded depth, cycle safe), and records the
// steps the IR describes: statements (with predicates, values and the earlier steps they
// use), external effects, unresolved calls, and branch/loop structure with the sources of
// their conditions. It reports facts only; verdicts are the core's.
import * as ts from "typescript";
import { BoundaryFinder, BoundarySite, callbackArgIndex, JOINING_PROPAGATIONS, WalkMode } from "./boundaries";
import { ACTIVE_RECORD_INSTANCE, apiOf, OPTIONAL_TARGET, REPOSITORY_METHODS } from "./catalog/statements";
import { calleeOf, matchEffect } from "./catalog/effects";
import { lookupCallee, UserCatalog } from "./settings";
import { EntityIndex, EntityInfo, typeormExportName } from "./entities";
import { HandleTypes } from "./handles";
import { DiagnosticRecord, Predicate, Source, StatementKind, StatementStep, Step, TransactionRecord } from "./ir";
import { calledDeclaration, declaredWithoutBody, implementationByName, libraryDeclaration, unresolvedImport } from "./callee-names";
import { NodeTable } from "./checker-memo";
import { calleeNameNode, lineOf, Origin, OriginResolver, qualifiedName, stripParens, unalias } from "./names";
import { compositeKeys, FIND_OPERATOR_NAMES, pkEquals } from "./predicates";
import { RepositoryAccessor } from "./request-context";
import { relPath } from "./program";
import { Frame } from "./frame";
import { newQb, qbCall } from "./querybuilders";
import { QUERY_CACHE_CALLEE } from "./query-cache";
import { BusHandlerIndex, ContainerIndex, ProviderIndex } from "./providers";
import { HierarchyIndex, MAX_CANDIDATES } from "./hierarchy";
import { EffectReach } from "./reach";
import { placeEffectsAt } from "./effect-sites";
import { entityStatement, rawQuery, repositoryStatement } from "./repository-statements";
import { ReadLog } from "./warm-reads";
import { heldArray, heldValueCheck } from "./held-values";
import { failingInContext, Fingerprint, memoKey, MemoKey, OpenRecording, Recording, replay, samePrint, sameTokens, taintAbove, taintAll, underChain, WalkMemo } from "./walk-memo";
import { allSources, constant, derive, Handle, PendingTimer, input, known, normSources, nullishOf, stepIds, truthOf, unfolded, union, UNKNOWN, Value } from "./values";

export interface WalkEnv {
  checker: ts.TypeChecker;
  rootDir: string;
  entities: EntityIndex;
  origins: OriginResolver;
  handles: HandleTypes;
  boundaries: BoundaryFinder;
  maxDepth: number;
  isAppFile(sf: ts.SourceFile): boolean;
  diagnostics: DiagnosticRecord[];
  /** the user's extra effects and statements (`--settings`) */
  catalog: UserCatalog;
  /** the data source caches query results in Redis (query-cache.ts) */
  externalQueryCache: boolean;
  /** NestJS providers bound to tokens (providers.ts) */
  providers: ProviderIndex;
  /** NestJS CQRS command and query handlers (providers.ts) */
  busHandlers: BusHandlerIndex;
  /** services registered in a container by name (providers.ts) */
  container: ContainerIndex;
  /** helper walks recorded for replay, shared by the scan's transactions (walk-memo.ts);
   *  null: every call is walked (to compare both ways) */
  memo?: WalkMemo | null;
  /** implementations of the application's interfaces and abstract classes (hierarchy.ts) */
  hierarchy: HierarchyIndex;
  /** external effects reachable from calls cut off by the depth limit (reach.ts) */
  reach: EffectReach;
  /** functions each walk enters, for the warm cache (warm-reads.ts) */
  reads?: ReadLog;
}

const ARRAY_ITERATION = new Set(["forEach", "map", "flatMap", "filter", "reduce", "reduceRight", "some", "every", "find", "findIndex", "findLast"]);
const PROMISE_COMBINATORS = new Set(["all", "allSettled", "race", "any"]);
/** methods of a promise whose callbacks are walked with what it resolves to (promiseChain) */
const PROMISE_CHAIN = new Set(["then", "catch", "finally"]);
const NODE_BUDGET = 250_000;
/** A helper walk of at least this many nodes is recorded at the first call in its context;
 *  a smaller one at the second (walk-memo.ts). */
const RECORD_AT_FIRST_NODES = 1000;

interface CatalogMatch {
  own: StatementKind | undefined;
  callee: string;
  m: ReturnType<typeof matchEffect>;
}
/** What a catalog says about a library call, by its origin (an OriginResolver keeps one origin
 *  object per node). */
const CATALOG_MATCHES = new WeakMap<UserCatalog, WeakMap<Origin, CatalogMatch>>();
/** Answers about a call site that depend on the site alone (and the scan's indexes, complete
 *  before any walk), kept per call: a helper's calls are met at each of its walks. */
type PerCall<R> = WeakMap<WalkEnv, NodeTable<R | undefined>>;
const WRAPPERS: PerCall<import("./boundaries").WrapperInfo> = new WeakMap();
const ACCESSORS: PerCall<RepositoryAccessor> = new WeakMap();

function perCall<R>(table: PerCall<R>, env: WalkEnv, call: ts.Node, compute: () => R | undefined): R | undefined {
  let known = table.get(env);
  if (!known) table.set(env, (known = new NodeTable()));
  return known.get(call, compute);
}

/** Each source file's path relative to a scan root (every step names its file). */
const RELATIVE_PATHS = new Map<string, WeakMap<ts.SourceFile, string>>();
/** Calls that, on an untyped receiver, could start database work besides the repository methods. */
const UNTYPED_ORM_ENTRY_POINTS = new Set(["createQueryBuilder", "query", "getRepository", "transaction", "increment", "decrement", "softDelete", "restore"]);

export class TransactionWalk {
  private counter = 0;
  private recording: boolean;
  private everStarted = false;
  private ended = false;
  private runnerSyms = new Set<ts.Symbol>();
  private nodes = 0;
  private budgetReported = false;
  readonly diagnostics: DiagnosticRecord[] = [];
  private outerCache = new Map<ts.Symbol, Value>();
  private outerActive = new Set<ts.Symbol>();
  private mode: WalkMode;
  /** loops being walked, innermost last; `starts`: a `startTransaction()` ran in this one */
  private loops: { node: ts.Node; starts: boolean }[] = [];
  /** reads that throw when no row is found (`findOneOrFail`, `getOneOrFail`), in order */
  private failingReads: string[] = [];
  /** the timer armed by the promise executor being walked */
  private executorTimer: PendingTimer | undefined;
  /** recorded helper walks by context (walk-memo.ts), and the recordings under way */
  private memo: WalkMemo | undefined;
  private memoOpen: OpenRecording[] = [];

  /** a request-context transaction in manual mode (`@Transaction("manual")`) that has not
   *  started yet: it starts at the call of a start helper (`connection.startTransaction(ctx)`) */
  private manualPending: boolean;

  constructor(readonly env: WalkEnv, private site: BoundarySite) {
    this.mode = site.mode;
    this.memo = env.memo === null ? undefined : env.memo ?? new WalkMemo();
    this.manualPending = site.mode === "context" && Object.values(site.options).includes("manual");
    this.recording = site.mode !== "runner" && !this.manualPending;
  }

  get checker(): ts.TypeChecker {
    return this.env.checker;
  }

  run(): TransactionRecord {
    const site = this.site;
    const steps: Step[] = [];
    const fnName = qualifiedName(this.env.rootDir, site.fn);
    const sf = site.anchor.getSourceFile();
    const file = relPath(this.env.rootDir, sf.fileName);
    const entry = new Frame(site.fn, [], 0, [site.fn], undefined, steps, undefined);
    this.env.reads?.note(site.fn);
    if (site.body) this.env.reads?.note(site.body);
    try {
      if (site.mode === "runner") {
        if (site.runner) {
          const sym = this.rootSymbol(site.runner);
          if (sym) this.runnerSyms.add(sym);
        }
        this.bindEntryParams(entry, site.fn);
        this.walkBody(site.fn, entry);
      } else if (site.body && !ts.isFunctionLike(site.body)) {
        // callback given by reference: this.work / work / this.work.bind(this)
        const target = this.resolveFunction(site.body as ts.Expression, entry);
        if (target) this.invokeEntryCallback(target.fn, entry, target.parent);
        else this.unresolved(entry, site.body, site.body.getText(), "dynamic-dispatch");
      } else if (site.body) {
        this.invokeEntryCallback(site.body as ts.FunctionLikeDeclaration, entry, entry);
      } else {
        // decorator forms: the method body is the transaction
        this.bindEntryParams(entry, site.fn, site.mode === "decorator");
        this.walkBody(site.fn, entry);
      }
    } catch (e) {
      this.diagnostics.push({
        ir: 1, type: "diagnostic", file, line: site.line, code: "internal-error", severity: "error",
        message: `transaction walk failed: ${(e as Error).message?.slice(0, 200)}`,
      });
    }
    return {
      ir: 1, type: "transaction", id: `${file}:${site.line}`, file, line: site.line, end_line: site.endLine, function: fnName,
      boundary: site.boundary, wrapper: site.wrapper, options: site.options, steps,
    };
  }

  private invokeEntryCallback(fn: ts.FunctionLikeDeclaration, entry: Frame, parent: Frame | undefined): void {
    const frame = new Frame(fn, [], 0, [this.site.fn, fn], undefined, entry.sink, parent ?? entry);
    fn.parameters.forEach((p, i) => {
      const b = this.site.bind.find((x) => x.index === i);
      const v: Value = b
        ? { sources: [{ kind: "unknown" }], handle: { kind: b.as, tx: true, text: p.name.getText() } }
        : { sources: [{ kind: "unknown" }] };
      this.bindName(p.name, v, frame);
    });
    this.walkBody(fn, frame);
  }

  /** Parameters of the function holding the transaction are its inputs; @TransactionManager()
   *  and @TransactionRepository() parameters are the transaction's handles. */
  private bindEntryParams(frame: Frame, fn: ts.FunctionLikeDeclaration, decorated = false): void {
    for (const p of fn.parameters) {
      let v: Value | undefined;
      if (decorated) {
        for (const d of ts.getDecorators(p) ?? []) {
          const e = d.expression;
          const callee = ts.isCallExpression(e) ? e.expression : e;
          const name = typeormExportName(this.checker, callee);
          if (name === "TransactionManager") v = { sources: [{ kind: "unknown" }], handle: { kind: "manager", tx: true, text: p.name.getText() } };
          if (name === "TransactionRepository") {
            const arg = ts.isCallExpression(e) ? e.arguments[0] : undefined;
            const th = this.env.handles.of(this.checker.getTypeAtLocation(p));
            const ent = (arg && this.entityOfTarget(arg)?.record.name) ?? th?.entity ?? null;
            v = { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity: ent, tx: true, text: p.name.getText(), customClass: th?.customClass } };
          }
        }
      }
      // an autocommit walk starts in any function: a parameter typed manager/repository is a handle
      if (!v && this.mode === "autocommit") v = this.typeHandleValue(p.name, frame);
      this.bindName(p.name, v ?? this.inputValue(p.name.getText(), p), frame);
    }
  }

  private inputValue(name: string, at: ts.Node): Value {
    const v: Value = input(name);
    const info = this.env.entities.byType(this.checker.getTypeAtLocation(at));
    if (info) v.obj = { entity: info.record.name, origin: "input", fields: new Map(), name };
    return v;
  }

  // ---------------------------------------------------------------- statements

  private walkBody(fn: ts.FunctionLikeDeclaration, frame: Frame): void {
    if (!fn.body) return;
    this.env.reads?.note(fn);
    if (ts.isBlock(fn.body)) this.walkStatements(fn.body.statements, frame);
    else frame.returns.push(this.evalExpr(fn.body, frame));
  }

  private tick(node: ts.Node, frame: Frame): boolean {
    if (++this.nodes <= NODE_BUDGET) return true;
    taintAll(this.memoOpen);
    if (!this.budgetReported) {
      this.budgetReported = true;
      this.unresolved(frame, node, qualifiedName(this.env.rootDir, frame.fn ?? this.site.fn), "budget");
      this.diag(node, "depth-limit", "warning", `transaction too large to follow completely (over ${NODE_BUDGET} nodes); rest skipped`);
    }
    return false;
  }

  /** Walks a statement list; returns true when it always leaves (return/throw/break/continue). */
  private walkStatements(stmts: ReadonlyArray<ts.Statement>, frame: Frame): boolean {
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i];
      if (ts.isIfStatement(s) && !s.elseStatement && alwaysExits(s.thenStatement) && i < stmts.length - 1) {
        // Guard clause: the rest of the block runs only when the condition is false, so it is
        // the else arm of this branch.
        const cond = this.evalExpr(s.expression, frame);
        const taken = truthOf(cond);
        if (taken === false) continue; // folded: the guard does not fire here
        if (taken === true) {
          if (this.walkStatement(s.thenStatement, frame)) return true;
          continue;
        }
        // `if (!row) throw ...` on a statement's result: the transaction aborts without the
        // row, so the statements after this one, also in the callers, run only when it was
        // found (as after a find-or-fail read)
        if (alwaysThrows(s.thenStatement)) this.failingReads.push(...stepIds(allSources(cond)).filter((id) => !this.failingReads.includes(id)));
        const before = new Map(frame.env);
        const thenArm: Step[] = [];
        const rec = this.saveRecording();
        this.withSink(frame, thenArm, () => this.walkStatement(s.thenStatement, frame));
        this.restoreRecording(rec); // the then arm left: the rest runs in the state before it
        frame.env = before;
        const elseArm: Step[] = [];
        let exits = false;
        this.withSink(frame, elseArm, () => {
          exits = this.walkStatements(stmts.slice(i + 1), frame);
        });
        this.pushBranch(frame, s, cond, [thenArm, elseArm]);
        return exits;
      }
      const failing = this.failingReads.length;
      if (this.walkStatement(s, frame)) return true;
      if (this.failingReads.length > failing && i < stmts.length - 1) {
        // a read that throws when it finds nothing (here or in a helper): the rest runs only
        // when it found a row, as after a guard clause on its result. Where the rest already
        // uses the row (a read-modify-write), that dependency says it: no branch is added, so
        // `findOneOrFail` reads as Django's `get()` does (tests/vectors).
        const failed = this.failingReads.slice(failing);
        const rest: Step[] = [];
        let exits = false;
        this.withSink(frame, rest, () => {
          exits = this.walkStatements(stmts.slice(i + 1), frame);
        });
        if (mentionsStep(rest, failed)) frame.sink.push(...rest);
        else this.pushBranch(frame, s, failed.map((step) => ({ kind: "result", step })), [[], rest]);
        return exits;
      }
    }
    return false;
  }

  private inLoop(node: ts.Node, frame: Frame, body: Step[], f: () => void): void {
    this.loops.push({ node, starts: false });
    try {
      this.withSink(frame, body, f);
    } finally {
      this.loops.pop();
    }
  }

  /** `await v`: a timer promise awaited in the transaction's own path is a sleep. Two waits are
   *  not: a timer raced against other work (`Promise.race([work, timeout])` settles with the
   *  work; its result carries no timer), and the back-off of a loop that retries
   *  `startTransaction()` without committing in it (the transaction has not begun). */
  private awaitValue(v: Value, frame: Frame): Value {
    const t = v.timer;
    if (!t) return v;
    const loop = this.loops[this.loops.length - 1];
    if (loop?.starts && !mentions(loop.node, "commitTransaction")) return derive(v);
    return this.emitEffect(frame, t.at, "sleep", t.callee, [v], t.via);
  }

  private withSink(frame: Frame, sink: Step[], f: () => void): void {
    const old = frame.sink;
    frame.sink = sink;
    try {
      f();
    } finally {
      frame.sink = old;
    }
  }

  private pushBranch(frame: Frame, at: ts.Node, cond: Value | Source[], arms: Step[][]): void {
    if (!arms.some((a) => a.length > 0)) return;
    const uses = Array.isArray(cond) ? normSources(cond) : normSources(allSources(cond));
    frame.sink.push({ node: "branch", file: this.fileOf(at), line: lineOf(at), via: frame.via, uses, arms });
  }

  private pushLoop(frame: Frame, at: ts.Node, iter: Value | Source[], body: Step[]): void {
    if (body.length === 0) return;
    const uses = Array.isArray(iter) ? normSources(iter) : normSources(allSources(iter));
    frame.sink.push({ node: "loop", file: this.fileOf(at), line: lineOf(at), via: frame.via, uses, body });
  }

  private walkStatement(s: ts.Statement, frame: Frame): boolean {
    if (!this.tick(s, frame)) return true;
    if (ts.isBlock(s)) return this.walkStatements(s.statements, frame);
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        const v = d.initializer ? this.evalExpr(d.initializer, frame) : constant("undefined");
        this.bindName(d.name, v, frame);
        if (!this.recording) this.renameOutside(d.name, frame);
      }
      return false;
    }
    if (ts.isExpressionStatement(s)) {
      const before = this.counter;
      const e = stripParens(s.expression);
      this.evalExpr(s.expression, frame);
      const unawaited = ts.isCallExpression(e) || (ts.isVoidExpression(e) && ts.isCallExpression(stripParens(e.expression)));
      if (unawaited && this.counter > before && this.recording) {
        const call = (ts.isVoidExpression(e) ? stripParens(e.expression) : e) as ts.CallExpression;
        const name = ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : "";
        if (!ARRAY_ITERATION.has(name) && this.isThenable(call)) {
          this.diag(call, "missing-await", "warning", `\`${shortText(call)}\` is not awaited inside the transaction: it may run after commit or on a released connection`);
        }
      }
      return false;
    }
    if (ts.isReturnStatement(s)) {
      if (s.expression) frame.returns.push(this.evalExpr(s.expression, frame));
      return true;
    }
    if (ts.isThrowStatement(s)) {
      this.evalExpr(s.expression, frame);
      return true;
    }
    if (ts.isBreakStatement(s) || ts.isContinueStatement(s)) return true;
    if (ts.isIfStatement(s)) {
      const cond = this.evalExpr(s.expression, frame);
      const taken = truthOf(cond);
      if (taken !== undefined) {
        // folded at this call site: only the taken arm runs, no branch
        if (taken) return this.walkStatement(s.thenStatement, frame);
        return s.elseStatement ? this.walkStatement(s.elseStatement, frame) : false;
      }
      const before = new Map(frame.env);
      const thenArm: Step[] = [];
      let thenExits = false;
      const rec = this.saveRecording();
      this.withSink(frame, thenArm, () => {
        thenExits = this.walkStatement(s.thenStatement, frame);
      });
      const recThen = this.saveRecording();
      this.restoreRecording(rec);
      const afterThen = frame.env;
      frame.env = new Map(before);
      const elseArm: Step[] = [];
      let elseExits = false;
      if (s.elseStatement) {
        this.withSink(frame, elseArm, () => {
          elseExits = this.walkStatement(s.elseStatement!, frame);
        });
      }
      const recElse = this.saveRecording();
      // the transaction state after the if: that of the arms that fall through
      if (thenExits && !elseExits) this.restoreRecording(recElse);
      else if (elseExits && !thenExits) this.restoreRecording(recThen);
      else this.restoreRecording({ recording: recThen.recording || recElse.recording, ended: recThen.ended && recElse.ended, everStarted: recThen.everStarted || recElse.everStarted });
      const afterElse = frame.env;
      frame.env = mergeEnvs([thenExits ? undefined : afterThen, elseExits ? undefined : afterElse], before);
      this.pushBranch(frame, s, cond, s.elseStatement ? [thenArm, elseArm] : [thenArm]);
      return thenExits && elseExits;
    }
    if (ts.isSwitchStatement(s)) {
      const cond = this.evalExpr(s.expression, frame);
      const before = new Map(frame.env);
      const arms: Step[][] = [];
      const envs: Map<ts.Symbol, Value>[] = [];
      for (const clause of s.caseBlock.clauses) {
        if (ts.isCaseClause(clause)) this.evalExpr(clause.expression, frame);
        frame.env = new Map(before);
        const arm: Step[] = [];
        this.withSink(frame, arm, () => this.walkStatements(clause.statements, frame));
        arms.push(arm);
        envs.push(frame.env);
      }
      frame.env = mergeEnvs(envs, before);
      this.pushBranch(frame, s, cond, arms);
      return false;
    }
    if (ts.isForOfStatement(s) || ts.isForInStatement(s)) {
      const iter = this.evalExpr(s.expression, frame);
      const elem = ts.isForInStatement(s) ? { sources: iter.sources } : elementOf(iter);
      const body: Step[] = [];
      this.inLoop(s, frame, body, () => {
        const init = s.initializer;
        if (ts.isVariableDeclarationList(init)) for (const d of init.declarations) this.bindName(d.name, elem, frame);
        else this.assignTo(init, elem, frame);
        this.walkStatement(s.statement, frame);
      });
      this.pushLoop(frame, s, iter, body);
      return false;
    }
    if (ts.isForStatement(s)) {
      if (s.initializer) {
        if (ts.isVariableDeclarationList(s.initializer)) {
          for (const d of s.initializer.declarations) this.bindName(d.name, d.initializer ? this.evalExpr(d.initializer, frame) : constant(), frame);
        } else this.evalExpr(s.initializer, frame);
      }
      const body: Step[] = [];
      let cond: Value = constant();
      this.inLoop(s, frame, body, () => {
        if (s.condition) cond = this.evalExpr(s.condition, frame);
        this.walkStatement(s.statement, frame);
        if (s.incrementor) this.evalExpr(s.incrementor, frame);
      });
      this.pushLoop(frame, s, cond, body);
      return false;
    }
    if (ts.isWhileStatement(s) || ts.isDoStatement(s)) {
      const body: Step[] = [];
      let cond: Value = constant();
      this.inLoop(s, frame, body, () => {
        if (ts.isWhileStatement(s)) cond = this.evalExpr(s.expression, frame);
        this.walkStatement(s.statement, frame);
        if (ts.isDoStatement(s)) cond = this.evalExpr(s.expression, frame);
      });
      // A condition over variables the body reassigns from fetched rows (keyset pagination)
      // depends on those rows: read the variables again after the body.
      cond = union(cond, this.condVariables(ts.isWhileStatement(s) || ts.isDoStatement(s) ? s.expression : undefined, frame));
      this.pushLoop(frame, s, cond, body);
      return false;
    }
    if (ts.isTryStatement(s)) return this.walkTry(s, frame);
    if (ts.isLabeledStatement(s)) return this.walkStatement(s.statement, frame);
    // declarations (functions, classes, types) run nothing here
    return false;
  }

  private condVariables(e: ts.Expression | undefined, frame: Frame): Value {
    const out: Value[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isIdentifier(n)) {
        const sym = this.checker.getSymbolAtLocation(n);
        const v = sym ? frame.lookup(sym) : undefined;
        if (v) out.push({ sources: allSources(v) });
      } else ts.forEachChild(n, visit);
    };
    if (e) visit(e);
    return union(constant(), ...out);
  }

  private saveRecording(): { recording: boolean; ended: boolean; everStarted: boolean } {
    return { recording: this.recording, ended: this.ended, everStarted: this.everStarted };
  }

  private restoreRecording(r: { recording: boolean; ended: boolean; everStarted: boolean }): void {
    this.recording = r.recording;
    this.ended = r.ended;
    this.everStarted = r.everStarted;
  }

  private walkTry(s: ts.TryStatement, frame: Frame): boolean {
    const recBefore = this.recording;
    const endedBefore = this.ended;
    const exits = this.walkStatements(s.tryBlock.statements, frame);
    const afterTry = this.recording;
    if (s.catchClause) {
      // The catch block runs after a failure somewhere in the try block: if the transaction
      // was open then, the catch block starts inside it (typically to roll back).
      this.recording = this.mode !== "runner" ? true : (recBefore || this.everStarted) && !endedBefore;
      const arm: Step[] = [];
      this.withSink(frame, arm, () => {
        if (s.catchClause!.variableDeclaration) this.bindName(s.catchClause!.variableDeclaration.name, UNKNOWN, frame);
        this.walkStatements(s.catchClause!.block.statements, frame);
      });
      this.pushBranch(frame, s.catchClause, [], [arm]);
      this.recording = this.mode !== "runner" ? true : afterTry && !this.ended;
    }
    if (s.finallyBlock) this.walkStatements(s.finallyBlock.statements, frame);
    return exits && !s.catchClause;
  }

  // ---------------------------------------------------------------- bindings

  private bindName(name: ts.BindingName, v: Value, frame: Frame): void {
    if (ts.isIdentifier(name)) {
      const sym = this.checker.getSymbolAtLocation(name);
      if (sym) frame.env.set(sym, v);
      return;
    }
    if (ts.isObjectBindingPattern(name)) {
      for (const el of name.elements) {
        const key = el.propertyName ? propertyNameText(el.propertyName) : ts.isIdentifier(el.name) ? el.name.text : undefined;
        if (el.dotDotDotToken) {
          this.bindName(el.name, { sources: v.sources, props: v.props, opaque: true }, frame);
          continue;
        }
        let sub = key ? this.member(v, key, undefined) : { sources: v.sources };
        if (el.initializer && sub.lit && sub.lit.v === undefined) sub = this.evalExpr(el.initializer, frame);
        else if (el.initializer && sub.sources.every((x) => x.kind === "unknown")) sub = union(sub, this.evalExpr(el.initializer, frame));
        this.bindName(el.name, sub, frame);
      }
      return;
    }
    name.elements.forEach((el, i) => {
      if (ts.isOmittedExpression(el)) return;
      const sub = el.dotDotDotToken ? { sources: v.sources, elems: v.elems } : unfolded(v.items?.[i] ?? elementOf(v));
      this.bindName(el.name, sub, frame);
    });
  }

  private renameOutside(name: ts.BindingName, frame: Frame): void {
    if (ts.isIdentifier(name)) {
      const sym = this.checker.getSymbolAtLocation(name);
      const v = sym ? frame.env.get(sym) : undefined;
      if (sym && v) frame.env.set(sym, this.outsideValue(v, name.text));
      return;
    }
    for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.renameOutside(el.name, frame);
  }

  /** Outside a QueryRunner's transaction, values are inputs of the transaction. */
  private outsideValue(v: Value, name: string): Value {
    if (v.handle || v.qb || v.closure) return v;
    const allConst = v.sources.every((s) => s.kind === "constant");
    const out: Value = allConst ? { ...v } : unfolded({ ...v, sources: [{ kind: "input", name }] });
    // an entity built outside (`repo.create(...)`, `new E()`) and not saved there is still new:
    // saving it in the transaction inserts it and gives it its generated key
    if (v.obj) out.obj = v.obj.origin === "new" && !v.obj.insertStep ? { ...v.obj, name } : { ...v.obj, origin: "input", step: undefined, name };
    return out;
  }

  private assignTo(target: ts.Expression, v: Value, frame: Frame): void {
    target = stripParens(target);
    if (ts.isIdentifier(target)) {
      const sym = this.checker.getSymbolAtLocation(target);
      if (sym) frame.assign(sym, v);
      return;
    }
    if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) {
      const key = ts.isPropertyAccessExpression(target) ? target.name.text : literalKey(target.argumentExpression);
      const base = this.evalExpr(target.expression, frame);
      if (!key) return;
      if (base.obj) base.obj.fields.set(key, v);
      else if (base.props) base.props.set(key, v);
      else if (ts.isIdentifier(target.expression) && isInputValue(base) && carriesResult(v)) {
        // `data.user = user` on a parameter: a later `data.user` is that row, not an input
        // (the save of `data.user` is keyed by what the read found)
        const sym = this.checker.getSymbolAtLocation(target.expression);
        const name = base.sources[0].name;
        if (sym) frame.assign(sym, { ...base, obj: { entity: null, origin: "input", fields: new Map([[key, v]]), name } });
      }
      else if (base.isThis) {
        /* this.x = ...: instance state, not tracked */
      }
      return;
    }
    if (ts.isObjectLiteralExpression(target) || ts.isArrayLiteralExpression(target)) {
      // destructuring assignment: approximate by binding every identifier to the value
      const visit = (n: ts.Node) => {
        if (ts.isIdentifier(n)) {
          const sym = this.checker.getSymbolAtLocation(n);
          if (sym) frame.assign(sym, { sources: v.sources });
        } else ts.forEachChild(n, visit);
      };
      visit(target);
    }
  }

  // ---------------------------------------------------------------- expressions

  evalExpr(e: ts.Expression, frame: Frame): Value {
    if (!this.tick(e, frame)) return UNKNOWN;
    switch (e.kind) {
      case ts.SyntaxKind.ParenthesizedExpression:
      case ts.SyntaxKind.AsExpression:
      case ts.SyntaxKind.NonNullExpression:
      case ts.SyntaxKind.TypeAssertionExpression:
      case ts.SyntaxKind.SatisfiesExpression:
        return this.evalExpr((e as ts.ParenthesizedExpression).expression, frame);
      case ts.SyntaxKind.AwaitExpression:
        return this.awaitValue(this.evalExpr((e as ts.AwaitExpression).expression, frame), frame);
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
        return known((e as ts.StringLiteral).text, (e as ts.StringLiteral).text);
      case ts.SyntaxKind.NumericLiteral:
        return known(Number((e as ts.NumericLiteral).text), (e as ts.NumericLiteral).text);
      case ts.SyntaxKind.TrueKeyword:
        return known(true, "true");
      case ts.SyntaxKind.FalseKeyword:
        return known(false, "false");
      case ts.SyntaxKind.NullKeyword:
        return known(null, "null");
      case ts.SyntaxKind.RegularExpressionLiteral:
      case ts.SyntaxKind.BigIntLiteral:
        return constant();
      case ts.SyntaxKind.ThisKeyword:
        return frame.thisValue ?? { sources: [{ kind: "unknown" }], isThis: true };
      case ts.SyntaxKind.Identifier:
        return this.evalIdentifier(e as ts.Identifier, frame);
      case ts.SyntaxKind.TemplateExpression: {
        const t = e as ts.TemplateExpression;
        const parts = t.templateSpans.map((sp) => this.evalExpr(sp.expression, frame));
        const v = union(constant(), ...parts);
        if (parts.every((p) => p.text !== undefined)) {
          v.text = t.head.text + t.templateSpans.map((sp, i) => parts[i].text + sp.literal.text).join("");
        }
        return { sources: normSources(parts.flatMap((p) => p.sources).concat([{ kind: "constant" }])), text: v.text };
      }
      case ts.SyntaxKind.PropertyAccessExpression:
        return this.evalPropertyAccess(e as ts.PropertyAccessExpression, frame);
      case ts.SyntaxKind.ElementAccessExpression: {
        const ea = e as ts.ElementAccessExpression;
        const base = this.evalExpr(ea.expression, frame);
        const idx = this.evalExpr(ea.argumentExpression, frame);
        const key = literalKey(ea.argumentExpression);
        if (key !== undefined && base.items && /^\d+$/.test(key)) return unfolded(base.items[Number(key)] ?? elementOf(base)); // items may be reassigned
        if (key !== undefined && (base.props || base.obj)) return this.member(base, key, ea);
        if (base.items || base.elems || base.obj?.many) return elementOf(base);
        return { sources: normSources([...base.sources, ...idx.sources]) };
      }
      case ts.SyntaxKind.CallExpression:
        return this.evalCall(e as ts.CallExpression, frame);
      case ts.SyntaxKind.NewExpression:
        return this.evalNew(e as ts.NewExpression, frame);
      case ts.SyntaxKind.ObjectLiteralExpression:
        return this.evalObject(e as ts.ObjectLiteralExpression, frame);
      case ts.SyntaxKind.ArrayLiteralExpression: {
        const items: Value[] = [];
        let opaque = false;
        for (const el of (e as ts.ArrayLiteralExpression).elements) {
          if (ts.isSpreadElement(el)) {
            const v = this.evalExpr(el.expression, frame);
            if (v.items) items.push(...v.items);
            else {
              items.push(elementOf(v));
              opaque = true;
            }
          } else items.push(this.evalExpr(el, frame));
        }
        const v: Value = { sources: normSources(items.flatMap((i) => i.sources).concat([{ kind: "constant" }])), items };
        if (opaque) {
          v.elems = union(...items);
          delete v.items;
        }
        return v;
      }
      case ts.SyntaxKind.ArrowFunction:
      case ts.SyntaxKind.FunctionExpression:
        return { sources: [{ kind: "constant" }], closure: { fn: e as ts.FunctionLikeDeclaration, frame } };
      case ts.SyntaxKind.BinaryExpression:
        return this.evalBinary(e as ts.BinaryExpression, frame);
      case ts.SyntaxKind.ConditionalExpression: {
        const c = e as ts.ConditionalExpression;
        const cond = this.evalExpr(c.condition, frame);
        const taken = truthOf(cond);
        if (taken !== undefined) return this.evalExpr(taken ? c.whenTrue : c.whenFalse, frame); // folded: one arm runs
        const a: Step[] = [];
        const b: Step[] = [];
        let va: Value = UNKNOWN;
        let vb: Value = UNKNOWN;
        this.withSink(frame, a, () => (va = this.evalExpr(c.whenTrue, frame)));
        this.withSink(frame, b, () => (vb = this.evalExpr(c.whenFalse, frame)));
        this.pushBranch(frame, c, cond, [a, b]);
        const out = union(va, vb);
        return { ...out, sources: normSources([...out.sources, ...cond.sources.filter((s) => s.step)]) };
      }
      case ts.SyntaxKind.PrefixUnaryExpression:
      case ts.SyntaxKind.PostfixUnaryExpression: {
        const u = e as ts.PrefixUnaryExpression;
        const v = this.evalExpr(u.operand, frame);
        if (u.operator === ts.SyntaxKind.PlusPlusToken || u.operator === ts.SyntaxKind.MinusMinusToken) this.assignTo(u.operand, { sources: v.sources }, frame);
        if (e.kind === ts.SyntaxKind.PrefixUnaryExpression) {
          const t = truthOf(v);
          if (u.operator === ts.SyntaxKind.ExclamationToken && t !== undefined) return { sources: v.sources, lit: { v: !t } };
          if (u.operator === ts.SyntaxKind.MinusToken && typeof v.lit?.v === "number") return { sources: v.sources, lit: { v: -v.lit.v } };
        }
        return { sources: v.sources };
      }
      case ts.SyntaxKind.TypeOfExpression:
      case ts.SyntaxKind.VoidExpression:
      case ts.SyntaxKind.DeleteExpression:
        return { sources: this.evalExpr((e as ts.TypeOfExpression).expression, frame).sources };
      case ts.SyntaxKind.SpreadElement:
        return this.evalExpr((e as ts.SpreadElement).expression, frame);
      case ts.SyntaxKind.TaggedTemplateExpression: {
        const t = e as ts.TaggedTemplateExpression;
        const parts = ts.isTemplateExpression(t.template) ? t.template.templateSpans.map((sp) => this.evalExpr(sp.expression, frame)) : [];
        return union(constant(), ...parts);
      }
      case ts.SyntaxKind.UndefinedKeyword:
        return known(undefined, "undefined");
      case ts.SyntaxKind.ClassExpression:
        return UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  private evalObject(o: ts.ObjectLiteralExpression, frame: Frame): Value {
    const props = new Map<string, Value>();
    let opaque = false;
    let inexact = false;
    for (const p of o.properties) {
      if (ts.isPropertyAssignment(p)) {
        const key = propertyNameText(p.name);
        const v = this.evalExpr(p.initializer, frame);
        if (key === undefined) opaque = true;
        else props.set(key, v);
      } else if (ts.isShorthandPropertyAssignment(p)) {
        // `{ email }`: the value is the variable, not the property symbol
        const sym = this.checker.getShorthandAssignmentValueSymbol(p);
        const bound = sym ? frame.lookup(sym) : undefined;
        props.set(p.name.text, bound ?? (sym ? this.withRunner(p.name, sym, this.outerValue(sym, p.name, frame)) : UNKNOWN));
      } else if (ts.isSpreadAssignment(p)) {
        const v = this.evalExpr(p.expression, frame);
        if (v.props) {
          for (const [k, pv] of v.props) props.set(k, pv);
          opaque ||= !!v.opaque;
          inexact ||= !v.exact;
        } else if (v.obj) {
          for (const [k, pv] of v.obj.fields) props.set(k, pv);
          opaque = true;
        } else opaque = true;
      } else if (ts.isMethodDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) {
        const key = propertyNameText(p.name);
        if (key) props.set(key, { sources: [{ kind: "constant" }], closure: { fn: p, frame } });
        if (!ts.isMethodDeclaration(p)) opaque = true; // accessors compute their members
      }
    }
    const sources = normSources([...[...props.values()].flatMap((v) => v.sources), { kind: "constant" }]);
    const out: Value = { sources, props, opaque };
    if (!opaque && !inexact) out.exact = true;
    return out;
  }

  private evalBinary(b: ts.BinaryExpression, frame: Frame): Value {
    const op = b.operatorToken.kind;
    if (op === ts.SyntaxKind.EqualsToken) {
      const v = this.evalExpr(b.right, frame);
      this.assignTo(b.left, v, frame);
      return v;
    }
    if (
      op === ts.SyntaxKind.PlusEqualsToken || op === ts.SyntaxKind.MinusEqualsToken || op === ts.SyntaxKind.AsteriskEqualsToken ||
      op === ts.SyntaxKind.SlashEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken
    ) {
      const l = this.evalExpr(b.left, frame);
      const r = this.evalExpr(b.right, frame);
      const v = { sources: normSources([...l.sources, ...r.sources]) };
      this.assignTo(b.left, v, frame);
      return v;
    }
    if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.AmpersandAmpersandToken) {
      const l = this.evalExpr(b.left, frame);
      // folded: the left operand decides whether the right one runs
      const lt = op === ts.SyntaxKind.QuestionQuestionToken ? nullishOf(l) : truthOf(l);
      if (lt !== undefined) {
        const rightRuns = op === ts.SyntaxKind.AmpersandAmpersandToken ? lt : op === ts.SyntaxKind.BarBarToken ? !lt : lt;
        return rightRuns ? this.evalExpr(b.right, frame) : l;
      }
      const arm: Step[] = [];
      let r: Value = UNKNOWN;
      this.withSink(frame, arm, () => (r = this.evalExpr(b.right, frame)));
      this.pushBranch(frame, b, l, [arm]);
      // `manager ?? this.repo.manager`: the left value wins when it is a handle
      // the left operand is not known here: neither is the result
      if (op === ts.SyntaxKind.AmpersandAmpersandToken) return unfolded({ ...r, sources: normSources([...l.sources, ...r.sources]) });
      const out = union(l, r);
      if (l.text === "undefined" || l.text === "null") return unfolded(r);
      return unfolded(out);
    }
    if (op === ts.SyntaxKind.CommaToken) {
      this.evalExpr(b.left, frame);
      return this.evalExpr(b.right, frame);
    }
    const l = this.evalExpr(b.left, frame);
    const r = this.evalExpr(b.right, frame);
    const v: Value = { sources: normSources([...l.sources, ...r.sources]) };
    if (op === ts.SyntaxKind.PlusToken && l.text !== undefined && r.text !== undefined) v.text = l.text + r.text;
    const folded = foldBinary(op, l, r);
    if (folded) v.lit = folded;
    return v;
  }

  private evalIdentifier(id: ts.Identifier, frame: Frame): Value {
    if (id.text === "undefined") return known(undefined, "undefined");
    const sym = this.checker.getSymbolAtLocation(id);
    if (!sym) return UNKNOWN;
    const v = frame.lookup(sym) ?? this.outerValue(sym, id, frame);
    return this.withRunner(id, sym, (v.lit || v.exact) && !this.isStable(sym) ? unfolded(v) : v);
  }

  private writtenNames = new Map<ts.Node, Set<string>>();

  /** A binding whose value cannot change after it is bound: a `const`, or a parameter / `let`
   *  / `var` never written in its function (names compared by text: over-approximates). The
   *  walk visits loop bodies once, so the known value of a variable written later (a loop
   *  counter, a flag set in a callback) must not be folded. */
  private isStable(sym: ts.Symbol): boolean {
    const decl = sym.valueDeclaration;
    if (!decl) return true;
    let n: ts.Node = decl;
    while (ts.isBindingElement(n) || ts.isObjectBindingPattern(n) || ts.isArrayBindingPattern(n)) n = n.parent;
    if (ts.isVariableDeclaration(n)) {
      const list = n.parent;
      if (!ts.isVariableDeclarationList(list)) return false;
      if (list.flags & ts.NodeFlags.Const) return true;
    } else if (!ts.isParameter(n)) {
      return !ts.isCatchClause(n.parent);
    }
    let container: ts.Node = ts.isParameter(n) ? n.parent : n;
    while (!ts.isFunctionLike(container) && !ts.isSourceFile(container) && container.parent) container = container.parent;
    let written = this.writtenNames.get(container);
    if (!written) {
      const out = new Set<string>();
      const names = (t: ts.Node) => {
        if (ts.isIdentifier(t)) out.add(t.text);
        else ts.forEachChild(t, names);
      };
      const visit = (x: ts.Node) => {
        if (ts.isBinaryExpression(x) && x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment) names(stripParens(x.left));
        else if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken)) names(x.operand);
        else if ((ts.isForOfStatement(x) || ts.isForInStatement(x)) && !ts.isVariableDeclarationList(x.initializer)) names(x.initializer);
        ts.forEachChild(x, visit);
      };
      visit(container);
      written = out;
      this.writtenNames.set(container, written);
    }
    return !written.has(sym.name);
  }

  private withRunner(id: ts.Node, sym: ts.Symbol, v: Value): Value {
    if (this.runnerSyms.has(sym)) return { ...v, handle: { kind: "runner", tx: true, text: id.getText() } };
    return v;
  }

  /** Value of a name bound outside the code being walked: a parameter or local of an enclosing
   *  function (an input of the transaction), a module constant, a function, a handle. */
  private outerValue(sym: ts.Symbol, at: ts.Node, frame: Frame): Value {
    const cached = this.outerCache.get(sym);
    if (cached) return cached;
    const target = unalias(this.checker, sym) ?? sym;
    const decl = target.valueDeclaration ?? target.declarations?.[0];
    let v: Value = UNKNOWN;
    if (!decl) v = this.typeHandleValue(at, frame) ?? UNKNOWN;
    else if (decl.getSourceFile().isDeclarationFile) v = this.typeHandleValue(at, frame) ?? constant(); // Math, JSON, process
    else if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) v = { sources: [{ kind: "constant" }], closure: { fn: decl, frame: undefined } };
    else if (ts.isClassDeclaration(decl) || ts.isEnumDeclaration(decl) || ts.isEnumMember(decl)) {
      // an entity class passed on as a value (`getEntityOrThrow(ctx, Order, id)`) keeps its name
      const info = ts.isClassDeclaration(decl) ? this.env.entities.bySymbol(target) : undefined;
      v = info ? { ...constant(), entityClass: info.record.name } : constant();
    }
    else if (ts.isParameter(decl) || ts.isBindingElement(decl)) {
      v = this.typeHandleValue(at, frame) ?? this.inputValue(target.name, at);
    } else if (ts.isVariableDeclaration(decl)) {
      const isConst = (ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const) !== 0;
      const moduleLevel = ts.isSourceFile(decl.parent.parent.parent) || ts.isModuleBlock(decl.parent.parent.parent);
      const init = decl.initializer ? stripParens(decl.initializer) : undefined;
      if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) v = { sources: [{ kind: "constant" }], closure: { fn: init, frame: undefined } };
      else if (init && isLiteralish(init) && (isConst || !moduleLevel)) v = this.evalExpr(init, frame);
      else {
        const h = this.typeHandleValue(at, frame);
        if (h) v = h;
        else if (init && !this.outerActive.has(sym) && decl.getSourceFile() === at.getSourceFile() && !moduleLevel) {
          // a local of the enclosing function: its handle/shape matters (repo obtained
          // outside the callback), its data is an input of the transaction
          this.outerActive.add(sym);
          const rec = this.recording;
          this.recording = false;
          const sink: Step[] = [];
          try {
            let iv: Value = UNKNOWN;
            this.withSink(frame, sink, () => (iv = this.evalExpr(init, frame)));
            v = this.outsideValue(iv, target.name);
          } finally {
            this.recording = rec;
            this.outerActive.delete(sym);
          }
        } else v = moduleLevel && isConst ? this.inputValue(target.name, at) : this.inputValue(target.name, at);
      }
    } else v = this.typeHandleValue(at, frame) ?? UNKNOWN;
    this.outerCache.set(sym, v);
    return v;
  }

  /** A handle recognised from the expression's type (injected repository, data source, ...). */
  private typeHandleValue(e: ts.Node, frame: Frame): Value | undefined {
    const th = this.env.handles.of(this.checker.getTypeAtLocation(e));
    if (!th) return undefined;
    const thisBound = ts.isPropertyAccessExpression(e) && e.expression.kind === ts.SyntaxKind.ThisKeyword && !!frame.thisValue?.txService;
    const tx = this.mode === "cls" || thisBound;
    if (th.kind === "qb") {
      const handle: Handle = { kind: "manager", tx, text: e.getText() };
      return { sources: [{ kind: "unknown" }], qb: newQb("select", th.entity, null, handle) };
    }
    return { sources: [{ kind: "unknown" }], handle: { kind: th.kind, entity: th.entity, tx, text: e.getText(), customClass: th.customClass } };
  }

  private evalPropertyAccess(pa: ts.PropertyAccessExpression, frame: Frame): Value {
    const name = pa.name.text;
    // `this.repo`, `qr.manager`, `this.dataSource.manager`
    const base = this.evalExpr(pa.expression, frame);
    if (base.handle) {
      const h = base.handle;
      if (name === "manager" && (h.kind === "runner" || h.kind === "repo" || h.kind === "datasource")) {
        return { sources: [{ kind: "unknown" }], handle: { kind: "manager", tx: h.tx, text: pa.getText() } };
      }
      if (name === "connection" || name === "dataSource") {
        return { sources: [{ kind: "unknown" }], handle: { kind: "datasource", tx: this.mode === "cls", text: pa.getText() } };
      }
      if (name === "queryRunner" && h.kind === "manager") return { sources: [{ kind: "unknown" }], handle: { kind: "runner", tx: h.tx, text: pa.getText() } };
    }
    if (base.isThis || base.handle?.customClass) {
      const sym = this.checker.getSymbolAtLocation(pa);
      if (sym && this.runnerSyms.has(sym)) return { sources: [{ kind: "unknown" }], handle: { kind: "runner", tx: true, text: pa.getText() } };
      const th = this.typeHandleValue(pa, frame);
      if (th) return th;
      return { sources: [{ kind: "unknown" }] };
    }
    if (!base.handle && !base.obj && !base.props) {
      const sym = this.checker.getSymbolAtLocation(pa);
      if (sym && this.runnerSyms.has(sym)) return { sources: [{ kind: "unknown" }], handle: { kind: "runner", tx: true, text: pa.getText() } };
      const th = this.typeHandleValue(pa, frame);
      if (th) return th;
    }
    // lazy relation: `await order.customer` where customer: Promise<Customer>
    if (base.obj && ts.isAwaitExpression(skipParentParens(pa))) {
      const lazy = this.lazyRelation(base, name, pa, frame);
      if (lazy) return lazy;
    }
    return this.member(base, name, pa);
  }

  /** Member `key` of a value (object field, entity attribute, generated key, input path). */
  private member(base: Value, key: string, at: ts.Node | undefined): Value {
    // Members are assigned in place, whatever branch the assignment is on: a member's known
    // value is not kept (only the absence of a member from an exact object literal is).
    if (base.exact && !base.opaque && !base.props?.has(key) && !(key in Object.prototype)) return known(undefined, "undefined"); // absent from an exact literal
    const v = this.memberValue(base, key, at);
    return v.lit || v.exact ? unfolded(v) : v;
  }

  private memberValue(base: Value, key: string, at: ts.Node | undefined): Value {
    if (base.props?.has(key)) return base.props.get(key)!;
    if (base.insertResult && (key === "identifiers" || key === "generatedMaps" || key === "raw")) {
      return { sources: [{ kind: "generated", step: base.insertResult }] };
    }
    if (base.obj) {
      const o = base.obj;
      if (o.fields.has(key)) return o.fields.get(key)!;
      const info = o.entity ? this.env.entities.byName(o.entity) : undefined;
      const attr = EntityIndex.attribute(info, key);
      if (attr === "pk" && o.key && !o.many) return { sources: o.key };
      if (attr === "pk" && o.insertStep) return { sources: normSources([{ kind: "generated", step: o.insertStep }, ...base.sources.filter((x) => x.step && x.step !== o.insertStep)]) };
      if (o.origin === "loaded" && o.step) {
        // `a ?? b` of two fetched/saved objects: the member may come from either
        const v: Value = { sources: normSources([{ kind: "result", step: o.step }, ...base.sources.filter((x) => x.step)]) };
        const rel = info?.relations.get(key);
        if (rel && rel.targetName) v.obj = { entity: this.env.entities.byName(rel.targetName)?.record.name ?? rel.targetName, origin: "loaded", step: o.step, fields: new Map(), many: !rel.owning && rel.decorator !== "OneToOne" };
        return v;
      }
      if (o.origin === "input") return { sources: [{ kind: "input", name: `${o.name ?? "input"}.${key}` }] };
      if (o.origin === "new") return { sources: [{ kind: "unknown" }] };
    }
    if (at && base.sources.length === 1 && base.sources[0].kind === "input" && base.sources[0].name) {
      return { sources: [{ kind: "input", name: `${base.sources[0].name}.${key}` }] };
    }
    if (key === "length" || !base.elems) return { sources: base.sources };
    return { sources: base.sources };
  }

  private lazyRelation(base: Value, name: string, at: ts.Node, frame: Frame): Value | undefined {
    const o = base.obj!;
    const info = o.entity ? this.env.entities.byName(o.entity) : undefined;
    const rel = info?.relations.get(name);
    if (!rel || !rel.lazy) return undefined;
    const target = rel.targetName ? this.env.entities.byName(rel.targetName) : undefined;
    const keySources = normSources(o.step ? [{ kind: "result", step: o.step }] : allSources(base));
    let predicate: Predicate;
    if (rel.owning && rel.decorator !== "ManyToMany") predicate = pkEquals(keySources, `${name}`);
    else {
      const inverse = rel.inverse ?? (info ? info.record.name.charAt(0).toLowerCase() + info.record.name.slice(1) : name);
      predicate = { bool: "and", args: [{ attribute: EntityIndex.attribute(target, inverse), lookup: inverse, op: "eq", sources: keySources }] };
    }
    return this.emitStatement(frame, at, null, {
      entity: target?.record.name ?? rel.targetName, kind: "read", api: `lazy:${name}`, predicate, dynamic: false, values: [], uses: [],
    }, !rel.owning || rel.decorator === "ManyToMany" || rel.decorator === "OneToMany");
  }

  // ---------------------------------------------------------------- calls

  evalArgs(call: ts.CallExpression | ts.NewExpression, frame: Frame): Value[] {
    return (call.arguments ?? []).map((a) => this.evalExpr(a, frame));
  }

  private evalCall(call: ts.CallExpression, frame: Frame): Value {
    const callee = stripParens(call.expression);

    // super(...) / import(...)
    if (callee.kind === ts.SyntaxKind.SuperKeyword || callee.kind === ts.SyntaxKind.ImportKeyword) {
      this.evalArgs(call, frame);
      return UNKNOWN;
    }

    if (this.manualPending && this.startsManualTransaction(call)) {
      this.evalArgs(call, frame);
      this.manualPending = false;
      this.recording = true;
      return UNKNOWN;
    }
    // the call of a runner factory that starts this transaction
    if (call === this.site.startCall) {
      this.evalArgs(call, frame);
      this.recording = true;
      this.everStarted = true;
      let up: ts.Node = call.parent;
      while (ts.isAwaitExpression(up) || ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isNonNullExpression(up)) up = up.parent;
      const decl = ts.isVariableDeclaration(up) ? up : undefined;
      if (decl && ts.isIdentifier(decl.name)) {
        const sym = this.checker.getSymbolAtLocation(decl.name);
        if (sym) this.runnerSyms.add(sym);
      }
      return { sources: [{ kind: "unknown" }], handle: { kind: "runner", tx: true, text: call.getText() } };
    }
    // wrapper of the app (runInTransaction(fn) helper)
    const wrapper = perCall(WRAPPERS, this.env, call, () => this.env.boundaries.wrapperOf(call));
    if (wrapper && wrapper.fn !== frame.fn) return this.callWrapper(call, wrapper, frame);

    if (ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee)) {
      const recvExpr = callee.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : literalKey(callee.argumentExpression);
      // Promise.all([...]) and friends
      if (ts.isIdentifier(recvExpr) && recvExpr.text === "Promise" && name && PROMISE_COMBINATORS.has(name)) {
        if (name === "race") {
          const raced = (this.evalArgs(call, frame)[0] ?? UNKNOWN);
          return { sources: raced.sources, items: raced.items, elems: raced.elems }; // its timers only bound the wait
        }
        const args = this.evalArgs(call, frame);
        const a = args[0] ?? UNKNOWN;
        // all/allSettled/any wait for their members: a timer among them is waited on
        const timer = a.timer ?? a.items?.find((i) => i.timer)?.timer ?? a.elems?.timer;
        return { sources: a.sources, items: a.items, elems: a.elems, timer };
      }
      const recv = this.evalExpr(recvExpr, frame);
      if (name && PROMISE_CHAIN.has(name) && this.isPromiseTyped(recvExpr)) return this.promiseChain(call, recv, name, frame);
      if (name === "startTransaction") for (const l of this.loops) l.starts = true;
      if (name) {
        const r = this.methodCall(call, recv, name, frame);
        if (r) return r;
      }
      return this.genericCall(call, frame, recv);
    }

    // plain function call
    if (ts.isIdentifier(callee)) {
      const sym = this.checker.getSymbolAtLocation(callee);
      const bound = sym ? frame.lookup(sym) : undefined;
      if (bound?.closure) {
        const args = this.evalArgs(call, frame);
        return this.invoke(bound.closure.fn, args, undefined, call, frame, bound.closure.frame as Frame | undefined, false, false, exactCall(call));
      }
      if (bound?.promiseResolve) {
        this.evalArgs(call, frame);
        return UNKNOWN;
      }
      const r = this.globalCall(call, callee, frame);
      if (r) return r;
    }
    return this.genericCall(call, frame, undefined);
  }

  /** typeorm 0.2 global helpers: getManager(), getRepository(User), getConnection(), ... */
  private globalCall(call: ts.CallExpression, callee: ts.Identifier, frame: Frame): Value | undefined {
    const name = typeormExportName(this.checker, callee);
    if (!name) return undefined;
    const args = this.evalArgs(call, frame);
    const tx = this.mode === "cls";
    const text = call.getText();
    if (FIND_OPERATOR_NAMES.has(name)) return { sources: normSources(args.flatMap((a) => allSources(a)).concat([{ kind: "constant" }])), findOp: { name, args } };
    if (name === "getManager" || name === "getMongoManager") return { sources: [{ kind: "unknown" }], handle: { kind: "manager", tx, text } };
    if (name === "getConnection") return { sources: [{ kind: "unknown" }], handle: { kind: "datasource", tx, text } };
    if (name === "getRepository" || name === "getTreeRepository" || name === "getMongoRepository") {
      return { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity: call.arguments[0] ? this.entityOfTarget(call.arguments[0])?.record.name ?? null : null, tx, text } };
    }
    if (name === "getCustomRepository") {
      const th = call.arguments[0] ? this.customRepoOf(call.arguments[0]) : undefined;
      return { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity: th?.entity ?? null, tx, text, customClass: th?.customClass } };
    }
    if (name === "createQueryBuilder") {
      const ent = call.arguments[0] ? this.entityOfTarget(call.arguments[0])?.record.name ?? null : null;
      return { sources: [{ kind: "unknown" }], qb: newQb("select", ent, call.arguments[1] ? args[1].text ?? null : null, { kind: "manager", tx, text }) };
    }
    return undefined;
  }

  private methodCall(call: ts.CallExpression, recv: Value, name: string, frame: Frame): Value | undefined {
    // query builders
    if (recv.qb) return qbCall(this, call, recv, name, frame);
    const recvExpr = stripParens((call.expression as ts.PropertyAccessExpression).expression);
    // an array the walk holds is neither a connection nor an entity class (held-values.ts)
    const held = heldArray(recv);
    if (held && heldValueCheck.compare) heldValueCheck.compare(call, { accessor: !!this.accessorOf(call), activeRecord: !!this.activeRecordClass(recvExpr) });
    // the app's transactional connection: `connection.getRepository(ctx, Entity)`
    if (!recv.handle && !held) {
      const acc = this.accessorOf(call);
      if (acc) return this.contextRepository(call, acc, frame);
    }
    const h = recv.handle;
    if (h) {
      const r = this.handleCall(call, recv, h, name, frame);
      if (r) return r;
    }
    // ActiveRecord static: User.findOneBy(...)
    const arInfo = held ? undefined : this.activeRecordClass(recvExpr);
    if (arInfo) {
      const handle: Handle = { kind: "repo", entity: arInfo.record.name, tx: this.mode === "cls", activeRecord: true, text: recvExpr.getText() };
      const r = this.handleCall(call, { sources: [{ kind: "unknown" }], handle }, handle, name, frame);
      if (r) return r;
    }
    // ActiveRecord instance: user.save()
    const arApi = apiOf(ACTIVE_RECORD_INSTANCE, name);
    if (arApi) {
      const info = recv.obj?.entity ? this.env.entities.byName(recv.obj.entity) : this.env.entities.byType(this.checker.getTypeAtLocation(recvExpr));
      if (info?.activeRecord) {
        const handle: Handle = { kind: "repo", entity: info.record.name, tx: this.mode === "cls", activeRecord: true, text: recvExpr.getText() };
        this.evalArgs(call, frame);
        const objVal = recv.obj ? recv : { ...recv, obj: { entity: info.record.name, origin: "input" as const, fields: new Map(), name: recvExpr.getText() } };
        return entityStatement(this, call, handle, info, name, arApi, objVal, frame);
      }
    }
    // transaction boundaries met inside the walk
    if (name === "transaction" && call.arguments.length > 0) {
      const last = stripParens(call.arguments[call.arguments.length - 1]);
      const isCb = ts.isArrowFunction(last) || ts.isFunctionExpression(last);
      if (isCb && (h ? h.tx : false)) {
        // savepoint of this transaction: its body is part of it
        const fn = last as ts.FunctionLikeDeclaration;
        const f = new Frame(fn, frame.via, frame.depth, frame.stack, frame.thisValue, frame.sink, frame);
        fn.parameters.forEach((p, i) => this.bindName(p.name, i === 0 ? { sources: [{ kind: "unknown" }], handle: { kind: "manager", tx: true, text: p.name.getText() } } : UNKNOWN, f));
        this.walkBody(fn, f);
        return union(...f.returns);
      }
      if (isCb && h) return UNKNOWN; // another transaction, reported on its own
    }
    // arrays built up in the transaction: lines.push(line)
    if ((name === "push" || name === "unshift") && recv.items) {
      const vals = this.evalArgs(call, frame);
      recv.items.push(...vals);
      recv.sources = normSources([...recv.sources, ...vals.flatMap((v) => v.sources)]);
      return constant();
    }
    // array iteration with callbacks: a loop
    if (ARRAY_ITERATION.has(name) && call.arguments.length > 0) {
      const cb = this.evalExpr(call.arguments[0], frame);
      if (cb.closure && (recv.items || recv.elems || recv.obj?.many || this.isArrayLike(call))) {
        return this.iterate(call, recv, name, cb, frame);
      }
    }
    return undefined;
  }

  private accessorOf(call: ts.CallExpression): RepositoryAccessor | undefined {
    return perCall(ACCESSORS, this.env, call, () => this.env.boundaries.contexts.repositoryAccessor(call, this.env.handles));
  }

  /** A repository from the app's transactional connection. Under a request-context decorator
   *  it is the transaction's when a context is passed (`ctx` carries the transaction's runner);
   *  without one (`getRepository(Entity)`) it reads through the plain connection. */
  private contextRepository(call: ts.CallExpression, acc: RepositoryAccessor, frame: Frame): Value {
    const vals = this.evalArgs(call, frame);
    const ctxArg = acc.ctx >= 0 ? call.arguments[acc.ctx] : undefined;
    const ctx = ctxArg ? stripParens(ctxArg) : undefined;
    const bound = !!ctx && ctx.kind !== ts.SyntaxKind.NullKeyword && !(ts.isIdentifier(ctx) && ctx.text === "undefined");
    const target = call.arguments[acc.target];
    const entity = (target ? this.entityOfTarget(target)?.record.name : undefined) ?? vals[acc.target]?.entityClass ?? null;
    const tx = (this.mode === "context" && bound) || this.mode === "cls";
    return { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity, tx, text: call.getText() } };
  }

  private isArrayLike(call: ts.CallExpression): boolean {
    const recvExpr = (call.expression as ts.PropertyAccessExpression).expression;
    const t = this.checker.getTypeAtLocation(recvExpr);
    return this.checker.isArrayType(t) || this.checker.isTupleType(t) || !!(t.flags & ts.TypeFlags.Any);
  }

  private iterate(call: ts.CallExpression, recv: Value, name: string, cb: Value, frame: Frame): Value {
    const fn = cb.closure!.fn;
    const elem = elementOf(recv);
    const body: Step[] = [];
    const before = this.counter;
    let ret: Value = UNKNOWN;
    this.withSink(frame, body, () => {
      const args = name === "reduce" || name === "reduceRight" ? [UNKNOWN, elem, constant()] : [elem, constant(), recv];
      ret = this.invoke(fn, args, undefined, call, frame, cb.closure!.frame as Frame | undefined, true);
    });
    this.pushLoop(frame, call, recv, body);
    const isAsync = !!ts.getModifiers(fn as ts.ArrowFunction)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
    if (name === "forEach" && isAsync && this.counter > before && this.recording) {
      this.diag(call, "missing-await", "warning", "forEach(async ...) inside the transaction: the statements are not awaited before commit");
    }
    if (name === "map" || name === "flatMap") return { sources: normSources([...recv.sources, ...ret.sources]), elems: ret };
    if (name === "filter" || name === "find" || name === "findLast") return recv;
    return { sources: normSources([...recv.sources, ...ret.sources]) };
  }

  /** A call through a TypeORM handle (repository, manager, data source, runner). */
  private handleCall(call: ts.CallExpression, recv: Value, h: Handle, name: string, frame: Frame): Value | undefined {
    const args = call.arguments;
    const text = call.getText();
    // handle factories
    if (name === "getRepository" || name === "getTreeRepository" || name === "getMongoRepository") {
      this.evalArgs(call, frame);
      const ent = args[0] ? this.entityOfTarget(args[0])?.record.name ?? null : null;
      return { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity: ent, tx: h.tx, text } };
    }
    if (name === "getCustomRepository" || name === "withRepository") {
      const vals = this.evalArgs(call, frame);
      const th = name === "withRepository" ? (vals[0]?.handle ? { entity: vals[0].handle.entity ?? null, customClass: vals[0].handle.customClass } : this.customRepoOf(args[0])) : args[0] ? this.customRepoOf(args[0]) : undefined;
      return { sources: [{ kind: "unknown" }], handle: { kind: "repo", entity: th?.entity ?? null, tx: h.tx, text, customClass: th?.customClass } };
    }
    if (name === "extend" && h.kind === "repo") {
      const vals = this.evalArgs(call, frame);
      return { sources: [{ kind: "unknown" }], handle: h, props: vals[0]?.props };
    }
    if (name === "createQueryRunner") {
      return { sources: [{ kind: "unknown" }], handle: { kind: "runner", tx: false, text } };
    }
    if (name === "createEntityManager") return { sources: [{ kind: "unknown" }], handle: { kind: "manager", tx: false, text } };
    if (name === "createQueryBuilder") {
      const vals = this.evalArgs(call, frame);
      if (h.kind === "repo") return { sources: [{ kind: "unknown" }], qb: newQb("select", h.entity ?? null, vals[0]?.text ?? null, h) };
      const ent = args[0] ? this.entityOfTarget(args[0]) : undefined;
      return { sources: [{ kind: "unknown" }], qb: newQb("select", ent?.record.name ?? null, ent ? vals[1]?.text ?? null : null, h) };
    }
    if (name === "create" || name === "merge") {
      // builds an object in memory: no statement
      const vals = this.evalArgs(call, frame);
      let info: EntityInfo | undefined;
      let data: Value | undefined;
      if (h.kind === "repo") {
        info = h.entity ? this.env.entities.byName(h.entity) : undefined;
        data = name === "merge" ? vals[1] : vals[0];
        if (name === "merge" && vals[0]?.obj) {
          for (const [k, v] of data?.props ?? []) vals[0].obj.fields.set(k, v);
          return vals[0];
        }
      } else {
        info = args[0] ? this.entityOfTarget(args[0]) : undefined;
        data = name === "merge" ? vals[2] : vals[1];
        if (name === "merge" && vals[1]?.obj) {
          for (const [k, v] of data?.props ?? []) vals[1].obj.fields.set(k, v);
          return vals[1];
        }
      }
      const many = !!data?.items;
      const fields = new Map<string, Value>(data?.props ?? data?.items?.[0]?.props ?? []);
      return { sources: normSources(allSources(data).concat([{ kind: "constant" }])), obj: { entity: info?.record.name ?? h.entity ?? null, origin: "new", fields, many } };
    }
    if (h.kind === "runner") {
      if (name === "startTransaction") {
        this.evalArgs(call, frame);
        if (h.tx && this.mode === "runner") {
          this.recording = true;
          this.everStarted = true;
        }
        return UNKNOWN;
      }
      if (name === "commitTransaction" || name === "rollbackTransaction") {
        if (h.tx && this.mode === "runner") {
          this.recording = false;
          this.ended = true;
        }
        return UNKNOWN;
      }
      if (name === "connect" || name === "release") return UNKNOWN;
      if (name === "query") return rawQuery(this, call, h, frame);
      return undefined;
    }
    if (name === "query") return rawQuery(this, call, h, frame);
    const api = apiOf(REPOSITORY_METHODS, name);
    if (!api) {
      // a method of a custom repository: walk it with `this` = this handle
      return undefined;
    }
    let info: EntityInfo | undefined;
    let argOffset = 0;
    if (h.kind === "repo") info = h.entity ? this.env.entities.byName(h.entity) : undefined;
    else {
      // EntityManager / DataSource: entity target first (optional for save/remove)
      const t = args[0] ? this.entityOfTarget(args[0]) : undefined;
      if (t) {
        info = t;
        argOffset = 1;
      } else if (!OPTIONAL_TARGET.has(name)) {
        const str = args[0] ? stripParens(args[0]) : undefined;
        argOffset = 1;
        if (str && (ts.isStringLiteral(str) || ts.isNoSubstitutionTemplateLiteral(str))) info = this.env.entities.byName(str.text);
      }
    }
    const vals = this.evalArgs(call, frame).slice(argOffset);
    const argExprs = args.slice(argOffset);
    // update/delete criteria given as an array of ids (a parameter typed number[])
    if ((api.shape === "criteria" || api.shape === "update" || api.shape === "step") && argExprs[0] && vals[0] && !vals[0].props && !vals[0].items && !vals[0].elems) {
      const t = this.checker.getTypeAtLocation(argExprs[0]);
      if (this.checker.isArrayType(t) || this.checker.isTupleType(t)) vals[0] = { ...vals[0], elems: { sources: vals[0].sources } };
    }
    if (this.env.externalQueryCache && (h.tx || this.mode === "cls") && api.shape === "options" && vals[0]?.props?.has("cache") && truthOf(vals[0].props.get("cache")!) !== false) {
      this.emitEffect(frame, call, "cache", QUERY_CACHE_CALLEE, []);
    }
    return repositoryStatement(this, call, h, info, name, api, vals, argExprs, frame);
  }

  // ---------------------------------------------------------------- other calls

  private evalNew(n: ts.NewExpression, frame: Frame): Value {
    const info = this.entityOfTarget(n.expression);
    if (info && !info.record.abstract) {
      this.evalArgs(n, frame);
      return { sources: [{ kind: "constant" }], obj: { entity: info.record.name, origin: "new", fields: new Map() } };
    }
    // new Promise(resolve => setTimeout(resolve, ms)): a sleep
    if (ts.isIdentifier(n.expression) && n.expression.text === "Promise" && n.arguments?.[0]) {
      const ex = this.evalExpr(n.arguments[0], frame);
      if (ex.closure) {
        const resolve: Value = { sources: [{ kind: "constant" }], promiseResolve: true };
        const outer = this.executorTimer;
        this.executorTimer = undefined;
        try {
          const r = this.invoke(ex.closure.fn, [resolve, resolve], undefined, n, frame, ex.closure.frame as Frame | undefined, true, true);
          return this.executorTimer ? { ...r, timer: this.executorTimer } : r;
        } finally {
          this.executorTimer = outer;
        }
      }
      return UNKNOWN;
    }
    const args = this.evalArgs(n, frame);
    // new Brackets(...) handled by the builder; other objects: data derived from arguments
    return { sources: normSources([...args.flatMap((a) => a.sources), { kind: "constant" }]) };
  }

  /** The user's statement or the effect a library call is (the same for every walk of it). */
  private catalogMatch(origin: Origin): CatalogMatch {
    let known = CATALOG_MATCHES.get(this.env.catalog);
    if (!known) CATALOG_MATCHES.set(this.env.catalog, (known = new WeakMap()));
    let got = known.get(origin);
    if (!got) {
      const callee = calleeOf(origin.module, origin.path);
      got = { own: lookupCallee(this.env.catalog.statements, callee), callee, m: matchEffect(origin.module, origin.path, this.env.catalog.effects) };
      known.set(origin, got);
    }
    return got;
  }

  /** Calls that are neither ORM statements nor boundaries: effects, the app's own functions,
   *  callbacks, and library calls whose callbacks we walk in place. */
  private genericCall(call: ts.CallExpression, frame: Frame, recv: Value | undefined): Value {
    // effects first (by origin)
    const origin = this.env.origins.ofExpression(call.expression);
    if (origin) {
      if (frame.inPromiseExecutor && origin.module === "<global>" && origin.path[0] === "setTimeout") {
        this.evalArgs(call, frame);
        if (this.recording) this.executorTimer ??= { at: call, callee: "setTimeout", via: frame.via };
        return UNKNOWN;
      }
      const { own, callee, m } = this.catalogMatch(origin);
      if (own) return this.userStatement(call, frame, own, callee);
      if (m) {
        const args = this.evalArgs(call, frame);
        if (m.category === "sleep") {
          // a timer promise: a sleep where it is awaited
          const v: Value = { sources: normSources(args.flatMap((a) => a.sources).concat([{ kind: "constant" }])) };
          if (this.recording) v.timer = { at: call, callee: m.callee, via: frame.via };
          return v;
        }
        return this.emitEffect(frame, call, m.category, m.callee, args);
      }
    }
    // a NestJS CQRS bus runs the message's handler (providers.ts)
    if (origin && BusHandlerIndex.isBusExecute(origin.module, origin.path)) {
      const handler = this.env.busHandlers.handlerOf(call);
      if (handler) {
        const self: Value = { sources: [{ kind: "unknown" }], isThis: true, instanceOf: classOf(handler) };
        return this.invoke(handler, this.evalArgs(call, frame), self, call, frame, undefined, false, false, exactCall(call));
      }
    }
    // a service resolved from a container by name
    const resolved = this.containerResolve(call, recv);
    if (resolved) return resolved;
    if (recv?.unresolvedService && this.recording) {
      this.evalArgs(call, frame);
      this.unresolved(frame, call, `${recv.unresolvedService}.${shortText(call.expression).split(".").pop()}`, "unresolved-receiver");
      return { sources: [{ kind: "unknown" }], unresolvedService: recv.unresolvedService }; // `withTransaction(m)` chains on it
    }
    // the application's own code (a member injected by token: the class the token is bound to;
    // an instance of a known class)
    const injected = this.injectedMethod(call, recv);
    const target = injected ? { fn: injected, parent: undefined } : this.resolveFunction(call.expression, frame, call);
    if (target) {
      const userNamed = this.userCatalogCall(call, target.fn, frame);
      if (userNamed) return userNamed;
      const args = this.evalArgs(call, frame);
      let thisValue: Value | undefined = recv;
      if (recv?.isThis && frame.thisValue) thisValue = frame.thisValue;
      if (recv?.handle?.customClass || recv?.handle || recv?.txService || recv?.instanceOf) thisValue = recv;
      // `service.withTransaction(manager)`: a copy of the service bound to the transaction
      if (args.some((a) => a.handle?.tx) && this.returnsOwnInstance(target.fn)) {
        return { sources: [{ kind: "unknown" }], isThis: true, txService: true, instanceOf: recv?.instanceOf ?? classOf(target.fn) };
      }
      return this.invoke(target.fn, args, thisValue, call, frame, target.parent, false, false, exactCall(call));
    }
    // an interface or abstract method: every implementation in the application
    const dispatched = this.dispatchCall(call, frame, recv);
    if (dispatched) return dispatched;
    // unknown/library call: walk function arguments in place, derive data from arguments
    const args = this.evalArgs(call, frame);
    for (const a of args) {
      // a library may change the members of an object it is given (Object.assign)
      if (a.exact) delete a.exact;
      if (a.props) for (const [k, pv] of a.props) if (pv.lit || pv.exact) a.props.set(k, unfolded(pv));
    }
    const handleArg = args.find((a) => a.handle?.tx || a.qb?.handle.tx);
    for (const a of args) {
      if (a.closure) this.invoke(a.closure.fn, [], undefined, call, frame, a.closure.frame as Frame | undefined, true);
    }
    const appDecl = this.recording ? this.appDeclarationWithoutBody(call) : undefined;
    if (appDecl) this.unresolved(frame, call, appDecl, "dynamic-dispatch"); // abstract or interface method
    else if (handleArg && this.recording && !this.isKnownLibraryCall(call)) {
      // a function value (callback, property) runs code chosen at run time
      this.unresolved(frame, call, shortText(call.expression), this.isCallOfValue(call) ? "dynamic-dispatch" : "unresolved-receiver");
    } else if (this.recording && recv && this.untypedOrmCall(call, recv)) {
      this.unresolved(frame, call, shortText(call.expression), "unresolved-receiver");
    }
    const sources = normSources([...(recv?.sources ?? []), ...args.flatMap((a) => a.sources), { kind: "constant" }]);
    return { sources: sources.length ? sources : [{ kind: "unknown" }] };
  }

  /** A call of an interface or abstract method: each implementation of the application is
   *  walked in an arm of a branch on the receiver, its chain marked `<dispatch NAME: N
   *  candidates>`; beyond MAX_CANDIDATES the call is unresolved. */
  private dispatchCall(call: ts.CallExpression, frame: Frame, recv: Value | undefined): Value | undefined {
    const d = this.env.hierarchy.dispatch(call);
    if (!d) return undefined;
    // as for body-less methods (appDeclarationWithoutBody): one that returns no promise (a
    // logger's `warn(): void`) runs no statement the transaction waits for
    const sig = this.checker.getResolvedSignature(call);
    if (!sig || !this.mayBeAwaitable(this.checker.getReturnTypeOfSignature(sig))) return undefined;
    const args = this.evalArgs(call, frame);
    const n = d.targets.length;
    if (n > MAX_CANDIDATES) {
      if (this.recording) this.unresolved(frame, call, d.label, "dynamic-dispatch", `${n} candidates`);
      return { sources: normSources([...(recv?.sources ?? []), ...args.flatMap((a) => a.sources), { kind: "unknown" }]) };
    }
    const marker = `<dispatch ${d.label}: ${n} candidate${n === 1 ? "" : "s"}>`;
    const outerVia = frame.via;
    const arms: Step[][] = [];
    const results: Value[] = [];
    try {
      for (const t of d.targets) {
        const arm: Step[] = [];
        frame.via = [...outerVia, marker];
        this.withSink(frame, arm, () => {
          if (!t.fn) {
            if (this.recording) this.unresolved(frame, call, t.name, "dynamic-dispatch", "implementation outside the application");
            return;
          }
          const self: Value = { sources: recv?.sources ?? [{ kind: "unknown" }], isThis: true, instanceOf: t.cls, txService: recv?.txService };
          results.push(this.invoke(t.fn, args, self, call, frame, undefined, false, false, exactCall(call)));
        });
        arms.push(placeEffectsAt(arm, this.fileOf(call), lineOf(call)));
      }
    } finally {
      frame.via = outerVia;
    }
    this.pushBranch(frame, call, recv?.sources ?? [], arms);
    return results.length ? union(...results) : UNKNOWN;
  }

  /** `x.save(...)`, `x.findOneBy(...)`, `x.createQueryBuilder()` on a receiver typed `any` (or
   *  of a type that did not resolve) whose value the walk does not know either: it could be a
   *  manager or repository, so the transaction cannot be called complete. Array-like calls
   *  (`find(cb)`) and values the walk knows (literals, objects, arrays) are not. */
  private untypedOrmCall(call: ts.CallExpression, recv: Value): boolean {
    const callee = stripParens(call.expression);
    if (!ts.isPropertyAccessExpression(callee)) return false;
    const name = callee.name.text;
    if (!apiOf(REPOSITORY_METHODS, name) && !UNTYPED_ORM_ENTRY_POINTS.has(name)) return false;
    // a value from another library (`createHash("sha1").update(...)` without its types)
    const origin = this.env.origins.ofExpression(callee.expression);
    if (origin && origin.module !== "typeorm" && !origin.module.startsWith("@nestjs/typeorm")) return false;
    if (recv.handle || recv.qb || recv.obj || recv.props || recv.items || recv.elems || recv.lit || recv.closure || recv.text !== undefined) return false;
    const first = call.arguments[0] ? stripParens(call.arguments[0]) : undefined;
    if (first && (ts.isArrowFunction(first) || ts.isFunctionExpression(first))) return false;
    const t = this.checker.getTypeAtLocation(callee.expression);
    return (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
  }

  private mayBeAwaitable(t: ts.Type): boolean {
    const parts = t.isUnion() ? t.types : [t];
    return parts.some((p) => (p.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0 || !!p.getProperty("then"));
  }

  /** The callee is a value (a parameter, a variable holding a function), not a declared function. */
  private isCallOfValue(call: ts.CallExpression): boolean {
    const e = stripParens(call.expression);
    const sym = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
    const decl = sym?.valueDeclaration;
    if (!sym || !decl) return false;
    return ts.isParameter(decl) || ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertySignature(decl);
  }

  /** `scope.resolve("orderService")` / `container.resolve("orderService")`: an instance of the
   *  class registered (or named by convention) under that name; otherwise calls on it are
   *  unresolved receivers. */
  private containerResolve(call: ts.CallExpression, recv: Value | undefined): Value | undefined {
    const callee = stripParens(call.expression);
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "resolve" || !recv || recv.handle || recv.props) return undefined;
    const arg = call.arguments[0] ? stripParens(call.arguments[0]) : undefined;
    if (!arg || !(ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) || call.arguments.length > 2) return undefined;
    const cls = this.env.container.classOf(arg.text);
    if (cls) return { sources: [{ kind: "unknown" }], isThis: true, instanceOf: cls };
    return { sources: [{ kind: "unknown" }], unresolvedService: arg.text };
  }

  private startsManualTransaction(call: ts.CallExpression): boolean {
    const decl = calledDeclaration(this.checker, call);
    if (!decl) return false;
    if (this.env.boundaries.startHelpers.has(decl)) return true;
    // an overload's implementation
    const sym = decl.name ? this.checker.getSymbolAtLocation(decl.name) : undefined;
    return !!sym?.declarations?.some((d) => this.env.boundaries.startHelpers.has(d));
  }

  /** A method whose declared result is the instance's own type (`withTransaction(m): this`). */
  private returnsOwnInstance(fn: ts.FunctionLikeDeclaration): boolean {
    const cls = classOf(fn);
    if (!cls) return false;
    const sig = this.checker.getSignatureFromDeclaration(fn);
    const ret = sig && this.checker.getReturnTypeOfSignature(sig);
    if (!ret) return false;
    if ((ret as ts.Type & { isThisType?: boolean }).isThisType) return true;
    const sym = ret.getSymbol();
    return !!sym && !!cls.name && sym === this.checker.getSymbolAtLocation(cls.name);
  }

  private injectedMethod(call: ts.CallExpression, recv: Value | undefined): ts.FunctionLikeDeclaration | undefined {
    const callee = stripParens(call.expression);
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    if (recv?.instanceOf) return this.env.providers.method(recv.instanceOf, callee.name.text);
    const cls = this.env.providers.classOfMember(callee.expression);
    return cls ? this.env.providers.method(cls, callee.name.text) : undefined;
  }

  /** An application function the user's catalog names is not walked: its call is the effect or
   *  the statement. */
  private userCatalogCall(call: ts.CallExpression, fn: ts.FunctionLikeDeclaration, frame: Frame): Value | undefined {
    const { effects, statements } = this.env.catalog;
    if (effects.size === 0 && statements.size === 0) return undefined;
    const name = qualifiedName(this.env.rootDir, fn);
    const kind = lookupCallee(statements, name);
    if (kind) return this.userStatement(call, frame, kind, name);
    const category = lookupCallee(effects, name);
    if (category) return this.emitEffect(frame, call, category, name, this.evalArgs(call, frame));
    return undefined;
  }

  /** A database call from the user's catalog: its rows are not known (dynamic predicate). */
  private userStatement(call: ts.CallExpression, frame: Frame, kind: StatementKind, api: string): Value {
    const args = this.evalArgs(call, frame);
    return this.emitStatement(frame, call, null, {
      entity: null, kind, api, predicate: kind === "insert" ? null : { bool: "and", args: [] }, dynamic: kind !== "insert", values: [],
      uses: stepIds(args.flatMap((a) => allSources(a))),
    }, true);
  }

  private isKnownLibraryCall(call: ts.CallExpression): boolean {
    const decl = calledDeclaration(this.checker, call);
    return !!decl && decl.getSourceFile().isDeclarationFile;
  }

  private appDeclarationWithoutBody(call: ts.CallExpression): string | undefined {
    const name = calleeNameNode(call);
    if (libraryDeclaration(this.checker, call) || (name && unresolvedImport(this.checker, name))) return undefined;
    const sig = this.checker.getResolvedSignature(call);
    const decl = sig?.declaration;
    if (!decl || ts.isJSDocSignature(decl)) return undefined;
    const sf = decl.getSourceFile();
    if (sf.isDeclarationFile || !this.env.isAppFile(sf)) return undefined;
    if (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Ambient) return undefined; // `declare function`: code outside the app
    if ((ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl) || ts.isFunctionDeclaration(decl)) && !(decl as ts.MethodDeclaration).body) {
      // an overload signature whose implementation is there is not missing a body
      const sym = decl.name ? this.checker.getSymbolAtLocation(decl.name) : undefined;
      if (sym?.declarations?.some((d) => ts.isFunctionLike(d) && (d as ts.FunctionLikeDeclaration).body)) return undefined;
      // a method that returns no promise (a logger's `warn(): void`) cannot run a statement the
      // transaction waits for
      if (!this.mayBeAwaitable(this.checker.getReturnTypeOfSignature(sig!))) return undefined;
      return qualifiedName(this.env.rootDir, decl);
    }
    return undefined;
  }

  /** The application function a callee expression denotes (closures first, then the checker). */
  private resolveFunction(e: ts.Expression, frame: Frame, call?: ts.CallExpression): { fn: ts.FunctionLikeDeclaration; parent?: Frame } | undefined {
    e = stripParens(e);
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === "bind") e = e.expression.expression;
    if (ts.isIdentifier(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      const bound = sym ? frame.lookup(sym) : undefined;
      if (bound?.closure) return { fn: bound.closure.fn, parent: bound.closure.frame as Frame | undefined };
      if (bound && !bound.closure && sym && (this.checker.getSymbolAtLocation(e)?.valueDeclaration && ts.isParameter(this.checker.getSymbolAtLocation(e)!.valueDeclaration!))) return undefined;
    }
    if (ts.isPropertyAccessExpression(e)) {
      // method of an object literal held in a value (repo.extend({...}), handler tables)
      const base = this.evalExprQuiet(e.expression, frame);
      const m = base?.props?.get(e.name.text);
      if (m?.closure) return { fn: m.closure.fn, parent: m.closure.frame as Frame | undefined };
    }
    let decl: ts.Declaration | undefined;
    const calleeName = ts.isPropertyAccessExpression(e) ? e.name : e;
    if (call) decl = implementationByName(this.checker, calleeName);
    // the signature is not resolved where its declaration cannot be a body to walk: a member the
    // checker cannot name (an `any` receiver) or a name imported from a module the program lacks
    // has no declared signature, a callee declared without a body (an interface's method, a
    // value of a function type) has one without a body
    const bodiless = !!call && !decl && ((stripParens(call.expression) === e && ts.isPropertyAccessExpression(e) && !this.checker.getSymbolAtLocation(e.name)) ||
      unresolvedImport(this.checker, calleeName) || declaredWithoutBody(this.checker, calleeName));
    if (call && !decl && !bodiless && !libraryDeclaration(this.checker, call)) {
      const sig = this.checker.getResolvedSignature(call);
      if (sig?.declaration && !ts.isJSDocSignature(sig.declaration)) decl = sig.declaration;
    }
    if (!decl || !(decl as ts.FunctionLikeDeclaration).body) {
      const found = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
      const sym = found && unalias(this.checker, found);
      decl = sym?.valueDeclaration ?? sym?.declarations?.[0];
    }
    if (!decl) return undefined;
    if (ts.isFunctionLike(decl) && !(decl as ts.FunctionLikeDeclaration).body) {
      // overloads: walk the implementation
      const sym = decl.name ? this.checker.getSymbolAtLocation(decl.name) : undefined;
      const impl = sym?.declarations?.find((d) => ts.isFunctionLike(d) && (d as ts.FunctionLikeDeclaration).body);
      if (impl) decl = impl;
    }
    if ((ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) && decl.initializer) {
      const init = stripParens(decl.initializer);
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) decl = init;
    }
    const fn = decl as ts.FunctionLikeDeclaration;
    if (!ts.isFunctionLike(decl) || !fn.body) return undefined;
    const sf = decl.getSourceFile();
    if (sf.isDeclarationFile || !this.env.isAppFile(sf)) return undefined;
    return { fn };
  }

  private evalExprQuiet(e: ts.Expression, frame: Frame): Value | undefined {
    e = stripParens(e);
    if (ts.isIdentifier(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      return sym ? frame.lookup(sym) : undefined;
    }
    if (e.kind === ts.SyntaxKind.ThisKeyword) return frame.thisValue;
    return undefined;
  }

  /** Walk an application function with arguments bound; returns its return value. */
  invoke(
    fn: ts.FunctionLikeDeclaration, args: Value[], thisValue: Value | undefined, call: ts.Node, frame: Frame, parent: Frame | undefined,
    inline = false, promiseExecutor = false, exactArgs = false,
  ): Value {
    if (!fn.body) return UNKNOWN;
    const propagation = this.env.boundaries.transactional.get(fn);
    if (propagation && !JOINING_PROPAGATIONS.has(propagation)) {
      // REQUIRES_NEW / NOT_SUPPORTED / NEVER: runs in its own transaction or none
      return { sources: normSources(args.flatMap((a) => a.sources)) };
    }
    // recursion, also through a callback walked in place (`const poll = async () => { ...; setTimeout(poll) }`)
    if (frame.stack.includes(fn)) {
      taintAbove(this.memoOpen, frame.stack.indexOf(fn));
      return { sources: normSources(args.flatMap((a) => a.sources)) };
    }
    // an autocommit walk examines one function: other functions are examined on their own
    if (this.mode === "autocommit" && !contains(this.site.fn, fn)) return { sources: normSources(args.flatMap((a) => a.sources)) };
    const depth = inline ? frame.depth : frame.depth + 1;
    const name = qualifiedName(this.env.rootDir, fn);
    if (depth > this.env.maxDepth) {
      taintAll(this.memoOpen);
      if (this.recording) {
        this.unresolved(frame, call, name, "depth-limit");
        this.diag(call, "depth-limit", "info", `call to ${name} not followed: depth limit ${this.env.maxDepth} reached`);
        const reached = this.env.reach.of(fn);
        if (reached) this.emitEffect(frame, call, reached.category, reached.callee, args);
      }
      return UNKNOWN;
    }
    // a helper called with a context seen before in this transaction: replay its walk
    const context = this.memo && !inline && !parent && !promiseExecutor ? [args, thisValue] : undefined;
    const contextPrint = context && this.memo!.fingerprints.of(context);
    const key = contextPrint !== undefined ? this.memoKey(fn, contextPrint, exactArgs) : undefined;
    const recorded = key !== undefined ? this.memo!.find(key) : undefined;
    if (recorded && this.nodes + recorded.nodes <= NODE_BUDGET) return this.replayWalk(recorded, frame, context!, key!);
    const mark = key !== undefined ? this.startRecording(frame, contextPrint!, this.memo!.metBefore(key)) : undefined;
    const via = inline ? frame.via : [...frame.via, name];
    const f = new Frame(fn, via, depth, [...frame.stack, fn], inline ? frame.thisValue : thisValue, frame.sink, parent ?? (inline ? frame : undefined));
    f.inPromiseExecutor = promiseExecutor || (inline && frame.inPromiseExecutor);
    // With `exactArgs` the arguments are those of this call site: a missing one is `undefined`
    // and a default it gets is known (branch conditions over them fold). Otherwise (callbacks
    // called by a library, wrappers) the values are only approximations.
    fn.parameters.forEach((p, i) => {
      let v: Value | undefined = p.dotDotDotToken ? { sources: normSources(args.slice(i).flatMap((a) => a.sources)), items: args.slice(i) } : args[i];
      if ((!v || v.text === "undefined" || (v.lit && v.lit.v === undefined)) && p.initializer) {
        v = this.evalExpr(p.initializer, f);
        if (!exactArgs) v = unfolded(v);
      }
      this.bindName(p.name, v ?? (exactArgs ? known(undefined, "undefined") : constant("undefined")), f);
    });
    try {
      this.walkBody(fn, f);
    } finally {
      if (mark) this.memoOpen.pop();
    }
    const out = this.resultOf(f);
    if (mark) this.finishRecording(mark, key!, context!, frame, out);
    return out;
  }

  private resultOf(f: Frame): Value {
    if (f.returns.length === 0) return constant("undefined");
    const ret = union(...f.returns);
    if (!ret.lit) return ret;
    const out = { ...ret }; // a function may also fall off its end: its result is not folded
    delete out.lit;
    return out;
  }

  // ---------------------------------------------------------------- memoised helper walks

  /** What a helper's walk can depend on besides its own code: arguments, receiver, and the
   *  transaction's state. undefined when that cannot be compared by content. Of the enclosing
   *  loops and the failing reads, only what the walk can read is in it (loopState,
   *  failingInContext): a helper called in two loops, or after another `findOneOrFail`, walks
   *  the same way. */
  private memoKey(fn: ts.FunctionLikeDeclaration, context: Fingerprint, exactArgs: boolean): MemoKey | undefined {
    const state = [fn, exactArgs, this.mode, this.site.startCall ?? null, this.recording, this.manualPending, this.ended, this.everStarted, this.runnerSyms.size, ...this.runnerSyms,
      ...this.loopState(), this.executorTimer ? this.executorTimer.at : null];
    const statePrint = this.memo!.fingerprints.ofState(state, failingInContext(this.failingReads, context.ids));
    return statePrint === undefined ? undefined : memoKey(statePrint, context);
  }

  /** What a walk can read of the loops it is called in: each one's `starts` (a
   *  `startTransaction()` sets them all; a walk that does so is not recorded, stateMark), and
   *  whether the innermost, once started, commits in its body (awaitValue). Which loops they
   *  are is read nowhere. */
  private loopState(): (boolean | number)[] {
    const out: (boolean | number)[] = [this.loops.length];
    for (const l of this.loops) out.push(l.starts);
    const inner = this.loops[this.loops.length - 1];
    if (inner?.starts) out.push(mentions(inner.node, "commitTransaction"));
    return out;
  }

  /** The state a recorded walk must leave as it found it (the failing reads it adds are
   *  recorded and added again at each replay). */
  private stateMark(): number[] {
    const mark = [+this.recording, +this.manualPending, +this.ended, +this.everStarted, this.runnerSyms.size, +!!this.executorTimer, this.loops.length];
    for (const l of this.loops) mark.push(+l.starts);
    return mark;
  }

  private startRecording(frame: Frame, context: Fingerprint, again: boolean) {
    const open: OpenRecording = { stackBase: frame.stack.length, tainted: false };
    this.memoOpen.push(open);
    return {
      open, sink: frame.sink, sinkStart: frame.sink.length, counter: this.counter, diagnostics: this.diagnostics.length, nodes: this.nodes,
      state: this.stateMark(), timer: this.executorTimer, context, reads: this.env.reads?.mark(), failing: this.failingReads.length, again,
    };
  }

  private finishRecording(mark: ReturnType<TransactionWalk["startRecording"]>, key: MemoKey, context: unknown[], frame: Frame, result: Value): void {
    if (mark.open.tainted || frame.sink !== mark.sink || !sameTokens(this.stateMark(), mark.state) || this.executorTimer !== mark.timer) return;
    // most contexts come once: a small walk is kept only when its context comes again (walking
    // it then costs less than checking and copying every first walk), a large one at once
    if (!mark.again && this.nodes - mark.nodes < RECORD_AT_FIRST_NODES) return;
    // the walk must have left its context as it found it (no argument or receiver changed)
    const paths = new Map<object, (string | number)[]>();
    const after = this.memo!.fingerprints.of(context, paths);
    if (!after || !samePrint(after, mark.context)) return;
    // a result holding a closure shares the frame it was made in: walk such calls each time
    if (!this.memo!.fingerprints.comparable([result])) return;
    const steps = frame.sink.slice(mark.sinkStart);
    if (!underChain(steps, frame.via)) return;
    const draft: Recording = {
      steps, result, diagnostics: this.diagnostics.slice(mark.diagnostics), firstId: mark.counter, idCount: this.counter - mark.counter,
      nodes: this.nodes - mark.nodes, viaBase: frame.via.length, paths, order: key.order, failingReads: this.failingReads.slice(mark.failing),
      reads: mark.reads === undefined ? undefined : this.env.reads?.since(mark.reads),
    };
    // kept as a copy: the caller goes on to change what it was given
    const copy = replay(draft, mark.counter, frame.via, context, key.order);
    // an earlier step id from outside the context (not renamed at a replay): not kept
    if (copy.foreign) return;
    this.memo!.keep(key, { ...draft, steps: copy.steps, result: copy.result, failingReads: copy.failingReads, diagnostics: draft.diagnostics.map((d) => ({ ...d })) });
  }

  private replayWalk(rec: Recording, frame: Frame, context: unknown[], key: MemoKey): Value {
    const { steps, result, failingReads } = replay(rec, this.counter, frame.via, context, key.order);
    this.memo!.replays++;
    this.counter += rec.idCount;
    this.nodes += rec.nodes;
    if (rec.reads) this.env.reads?.add(rec.reads);
    frame.sink.push(...steps);
    this.failingReads.push(...failingReads);
    for (const d of rec.diagnostics) this.diagnostics.push({ ...d });
    return result;
  }

  private callWrapper(call: ts.CallExpression, w: import("./boundaries").WrapperInfo, frame: Frame): Value {
    const args = this.evalArgs(call, frame);
    const cb = args[callbackArgIndex(w, call)];
    if (w.mode === "context" && this.mode === "context" && cb?.closure) {
      // inside a request-context transaction the wrapper joins it (a savepoint): its callback's
      // repositories come from the same context
      return this.invoke(cb.closure.fn, cb.closure.fn.parameters.map(() => UNKNOWN), undefined, call, frame, cb.closure.frame as Frame | undefined, true);
    }
    const joins = args.some((a) => a.handle?.tx);
    if (!cb?.closure || !joins) return UNKNOWN; // a transaction of its own, reported at this call
    const fn = cb.closure.fn;
    const tx = args.find((a) => a.handle?.tx)!.handle!;
    const cbArgs: Value[] = fn.parameters.map((_, i) => (w.bind.some((b) => b.index === i) ? { sources: [{ kind: "unknown" as const }], handle: { ...tx } } : UNKNOWN));
    return this.invoke(fn, cbArgs, undefined, call, frame, cb.closure.frame as Frame | undefined, true);
  }

  // ---------------------------------------------------------------- emitting

  emitStatement(
    frame: Frame, at: ts.Node, h: Handle | null, s: Omit<StatementStep, "node" | "id" | "file" | "line" | "via">, many: boolean,
  ): Value {
    if (!this.recording) {
      return { sources: [{ kind: "input", name: shortText(at) }], obj: { entity: s.entity, origin: "input", fields: new Map(), many, name: shortText(at) } };
    }
    if (h && !h.tx && this.mode !== "cls" && this.mode !== "autocommit") {
      this.diag(at, "escaped-manager", "warning",
        `${s.api} on \`${h.text.length > 60 ? h.text.slice(0, 57) + "..." : h.text}\` runs outside the transaction: use the transaction's manager`);
      return { sources: [{ kind: "unknown" }], obj: { entity: s.entity, origin: "unknown", fields: new Map(), many } };
    }
    const id = `s${++this.counter}`;
    // `uses` carries what the predicate and values cannot say: the saved object, a builder's
    // subqueries, the parameters of SQL txscan could not read. Keys and values from earlier
    // steps are already in their sources (the core reads those as key/value dependencies).
    const used = new Set<string>(s.uses);
    const pk = s.entity ? this.env.entities.byName(s.entity)?.record.pk : undefined;
    const predicate = pk && pk.length > 1 ? compositeKeys(s.predicate, pk) : s.predicate;
    const step: StatementStep = {
      node: "statement", id, file: this.fileOf(at), line: lineOf(at), via: frame.via, entity: s.entity, kind: s.kind, api: s.api,
      predicate, dynamic: s.dynamic, values: s.values,
      uses: [...used].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
    };
    if (s.sql !== undefined) step.sql = s.sql;
    frame.sink.push(step);
    if (/OrFail$/.test(s.api)) this.failingReads.push(id);
    const key = !many && (s.kind === "read" || s.kind === "lock") ? pkKeyOf(predicate) : undefined;
    return { sources: [{ kind: "result", step: id }], obj: { entity: s.entity, origin: "loaded", step: id, fields: new Map(), many, key } };
  }

  emitEffect(frame: Frame, at: ts.Node, category: string, callee: string, args: Value[], via = frame.via): Value {
    if (!this.recording) return UNKNOWN;
    const id = `s${++this.counter}`;
    frame.sink.push({
      node: "effect", id, file: this.fileOf(at), line: lineOf(at), via, category, callee,
      uses: stepIds(args.flatMap((a) => allSources(a))),
    });
    return { sources: [{ kind: "external", step: id }] };
  }

  unresolved(frame: Frame, at: ts.Node, callee: string, reason: string, detail?: string): void {
    if (!this.recording) return;
    frame.sink.push({ node: "unresolved", file: this.fileOf(at), line: lineOf(at), via: frame.via, callee, reason, detail });
  }

  private diag(at: ts.Node, code: string, severity: DiagnosticRecord["severity"], message: string): void {
    this.diagnostics.push({ ir: 1, type: "diagnostic", file: this.fileOf(at), line: lineOf(at), code, severity, message });
  }

  protected fileOf(n: ts.Node): string {
    const sf = n.getSourceFile();
    let known = RELATIVE_PATHS.get(this.env.rootDir);
    if (!known) RELATIVE_PATHS.set(this.env.rootDir, (known = new WeakMap()));
    let rel = known.get(sf);
    if (rel === undefined) known.set(sf, (rel = relPath(this.env.rootDir, sf.fileName)));
    return rel;
  }

  // ---------------------------------------------------------------- helpers

  /** The entity an expression names as a target: a class, an EntitySchema, a string name. */
  entityOfTarget(e: ts.Expression): EntityInfo | undefined {
    e = stripParens(e);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return this.env.entities.byName(e.text);
    if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      const info = this.env.entities.bySymbol(sym);
      if (info) return info;
      if (sym?.valueDeclaration && ts.isVariableDeclaration(sym.valueDeclaration)) {
        const init = sym.valueDeclaration.initializer;
        if (init && ts.isNewExpression(init)) return this.env.entities.byNode(init);
      }
      // `typeof User` typed values (entity classes passed around)
      const t = this.checker.getTypeAtLocation(e);
      const ts_ = t.getSymbol();
      if (ts_ && ts_.flags & ts.SymbolFlags.Class && this.checker.getTypeOfSymbolAtLocation(ts_, e) === t) return this.env.entities.bySymbol(ts_);
    }
    return undefined;
  }

  private customRepoOf(e: ts.Expression): { entity: string | null; customClass?: ts.ClassLikeDeclaration } | undefined {
    const sym = this.checker.getSymbolAtLocation(stripParens(e));
    const target = sym && unalias(this.checker, sym);
    if (sym && !target) return undefined;
    const decl = target?.declarations?.find((d) => ts.isClassDeclaration(d)) as ts.ClassDeclaration | undefined;
    if (!decl) {
      const th = this.env.handles.of(this.checker.getTypeAtLocation(e));
      return th ? { entity: th.entity, customClass: th.customClass } : undefined;
    }
    const inst = this.checker.getDeclaredTypeOfSymbol(target!);
    const th = this.env.handles.of(inst);
    return { entity: th?.entity ?? null, customClass: decl };
  }

  private activeRecordClass(e: ts.Expression): EntityInfo | undefined {
    if (!ts.isIdentifier(e) && !ts.isPropertyAccessExpression(e)) return undefined;
    const info = this.env.entities.bySymbol(this.checker.getSymbolAtLocation(e));
    return info?.activeRecord ? info : undefined;
  }

  private rootSymbol(e: ts.Expression): ts.Symbol | undefined {
    e = stripParens(e);
    if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) return this.checker.getSymbolAtLocation(e);
    return undefined;
  }

  /** A receiver whose declared type is a promise (not `any`: an untyped value's `then` may be
   *  anything). */
  private isPromiseTyped(e: ts.Expression): boolean {
    const t = this.checker.getTypeAtLocation(e);
    return (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) === 0 && !!t.getProperty("then") && !!t.getProperty("catch");
  }

  /** `p.then(f, g)`, `p.catch(g)`, `p.finally(h)` with callbacks written in place: `f` gets what
   *  `p` resolves to (a loaded row keeps its key and entity), the chain resolves to what the
   *  callbacks return (`.then((r) => r ?? undefined)` is still that row). A timer of `p` stays
   *  pending until the chain is awaited. */
  private promiseChain(call: ts.CallExpression, recv: Value, name: string, frame: Frame): Value {
    const args = this.evalArgs(call, frame);
    const run = (cb: Value | undefined, input: Value[]): Value | undefined =>
      cb?.closure ? this.invoke(cb.closure.fn, input, undefined, call, frame, cb.closure.frame as Frame | undefined, true) : undefined;
    const settled: Value = { ...recv, timer: undefined };
    let out: Value;
    if (name === "then") {
      const fulfilled = run(args[0], [settled]);
      const rejected = run(args[1], [UNKNOWN]);
      out = union(fulfilled ?? (args[0]?.closure ? UNKNOWN : settled), rejected);
    } else if (name === "catch") {
      out = union(settled, run(args[0], [UNKNOWN]));
    } else {
      run(args[0], []);
      out = settled;
    }
    return recv.timer ? { ...out, timer: recv.timer } : out;
  }

  private isThenable(call: ts.CallExpression): boolean {
    const t = this.checker.getTypeAtLocation(call);
    if (t.flags & ts.TypeFlags.Any) return true;
    return !!t.getProperty("then");
  }
}

// ---------------------------------------------------------------- small helpers






/** A call whose arguments are all written out (no spread): its missing ones are `undefined`. */
function exactCall(call: ts.CallExpression): boolean {
  return !call.arguments.some((a) => ts.isSpreadElement(a));
}

/** Constant folding of a comparison or arithmetic over two known primitives. */
function foldBinary(op: ts.SyntaxKind, l: Value, r: Value): Value["lit"] | undefined {
  const K = ts.SyntaxKind;
  // `options == null` where options is an object literal / function
  if (!l.lit || !r.lit) {
    const [obj, other] = l.lit ? [r, l] : [l, r];
    if (!(obj.exact || obj.closure) || !other.lit || (other.lit.v !== null && other.lit.v !== undefined)) return undefined;
    if (op === K.EqualsEqualsToken || op === K.EqualsEqualsEqualsToken) return { v: false };
    if (op === K.ExclamationEqualsToken || op === K.ExclamationEqualsEqualsToken) return { v: true };
    return undefined;
  }
  const a = l.lit.v;
  const b = r.lit.v;
  switch (op) {
    case K.EqualsEqualsToken: return { v: a == b };
    case K.EqualsEqualsEqualsToken: return { v: a === b };
    case K.ExclamationEqualsToken: return { v: a != b };
    case K.ExclamationEqualsEqualsToken: return { v: a !== b };
  }
  const numeric = (x: unknown) => typeof x === "number" || x === null || x === undefined;
  if (!numeric(a) || !numeric(b)) return undefined;
  const x = a as number;
  const y = b as number;
  switch (op) {
    case K.LessThanToken: return { v: x < y };
    case K.LessThanEqualsToken: return { v: x <= y };
    case K.GreaterThanToken: return { v: x > y };
    case K.GreaterThanEqualsToken: return { v: x >= y };
  }
  if (typeof a !== "number" || typeof b !== "number") return undefined;
  switch (op) {
    case K.PlusToken: return { v: a + b };
    case K.MinusToken: return { v: a - b };
    case K.AsteriskToken: return { v: a * b };
  }
  return undefined;
}

/** The value of one element of a collection value. */
export function elementOf(v: Value): Value {
  if (v.elems) return unfolded(v.elems);
  if (v.items && v.items.length) return unfolded(union(...v.items));
  if (v.obj) return { sources: v.sources, obj: { ...v.obj, many: false } };
  return { sources: v.sources };
}

/** A row fetched by primary-key equality has that key (the sources of the pk term). */
function pkKeyOf(p: Predicate | null): Source[] | undefined {
  if (!p) return undefined;
  const top = "attribute" in p ? [p] : p.bool === "and" ? p.args : [];
  for (const t of top) {
    if ("attribute" in t && t.attribute === "pk" && t.op === "eq") return t.sources;
  }
  return undefined;
}

/** The bindings after arms of a branch (`undefined`: an arm that leaves), from those before it. */
export function mergeEnvs(envs: (Map<ts.Symbol, Value> | undefined)[], before: Map<ts.Symbol, Value>): Map<ts.Symbol, Value> {
  const live = envs.filter((e): e is Map<ts.Symbol, Value> => !!e);
  if (live.length === 0) return before;
  if (live.length === 1 && envs.length === 1) {
    // if without else: the branch may not run
    const out = new Map(before);
    for (const [k, v] of live[0]) {
      const b = before.get(k);
      out.set(k, b && b !== v ? union(b, v) : v);
    }
    return out;
  }
  // the keys in the order a Set of all the envs' keys would give; most bindings are the same
  // object in every env (not written in any arm) and are kept without a join
  const out = new Map<ts.Symbol, Value>();
  for (const e of live) {
    for (const k of e.keys()) {
      if (out.has(k)) continue;
      let first: Value | undefined;
      let distinct: Value[] | undefined;
      for (const other of live) {
        const x = other.get(k) ?? before.get(k);
        if (!x) continue;
        if (first === undefined) first = x;
        else if (x !== first && !(distinct ??= [first]).includes(x)) distinct.push(x);
      }
      out.set(k, distinct ? union(...distinct) : first ?? union());
    }
  }
  return out;
}

/** A statement that always ends by throwing (`throw`, or a block whose last statement throws). */
/** Whether the JSON text of `v` holds one of the step ids as a quoted string (`"s12"`), found
 *  without writing the text: a string is quoted there exactly when it is the id, or ends with a
 *  quote and the id (the quote escaped: `"a\"s12"`). Maps and sets are written as `{}`. */
export function mentionsStep(v: unknown, ids: readonly string[]): boolean {
  if (typeof v === "string") {
    // no closure or text made per string: every key and string of the steps is asked
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (v === id || (v.endsWith(id) && v.charCodeAt(v.length - id.length - 1) === 34 /* " */)) return true;
    }
    return false;
  }
  if (v === null || typeof v !== "object" || v instanceof Map || v instanceof Set) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return ids.some((id) => JSON.stringify(v).includes(`"${id}"`));
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (mentionsStep(v[i], ids)) return true;
    return false;
  }
  // own members only: the steps are plain objects, whose prototype has no enumerable ones
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    if (mentionsStep(k, ids) || mentionsStep(x, ids)) return true;
  }
  return false;
}

function alwaysThrows(s: ts.Statement): boolean {
  if (ts.isThrowStatement(s)) return true;
  return ts.isBlock(s) && s.statements.length > 0 && alwaysThrows(s.statements[s.statements.length - 1]);
}

function alwaysExits(s: ts.Statement): boolean {
  if (ts.isReturnStatement(s) || ts.isThrowStatement(s) || ts.isContinueStatement(s) || ts.isBreakStatement(s)) return true;
  if (ts.isBlock(s)) return s.statements.length > 0 && alwaysExits(s.statements[s.statements.length - 1]);
  if (ts.isIfStatement(s)) return !!s.elseStatement && alwaysExits(s.thenStatement) && alwaysExits(s.elseStatement);
  return false;
}

function propertyNameText(n: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isPrivateIdentifier(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isComputedPropertyName(n)) {
    const e = stripParens(n.expression);
    if (ts.isStringLiteral(e) || ts.isNumericLiteral(e)) return e.text;
  }
  return undefined;
}

function literalKey(e: ts.Expression): string | undefined {
  e = stripParens(e);
  if (ts.isStringLiteral(e) || ts.isNumericLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  return undefined;
}

function isLiteralish(e: ts.Expression): boolean {
  e = stripParens(e);
  if (ts.isStringLiteral(e) || ts.isNumericLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return true;
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isPrefixUnaryExpression(e)) return isLiteralish(e.operand);
  if (ts.isArrayLiteralExpression(e)) return e.elements.every((x) => isLiteralish(x));
  if (ts.isObjectLiteralExpression(e)) return e.properties.every((p) => ts.isPropertyAssignment(p) && isLiteralish(p.initializer));
  return false;
}

function skipParentParens(n: ts.Node): ts.Node {
  let p = n.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p) || ts.isAsExpression(p))) p = p.parent;
  return p;
}

function shortText(n: ts.Node): string {
  const t = n.getText().replace(/\s+/g, " ");
  return t.length > 80 ? t.slice(0, 77) + "..." : t;
}

/** Whether an identifier with this text occurs under `node`. */
function mentions(node: ts.Node, name: string): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n.text === name) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** Whether `inner` is `outer` or nested inside it. */
function contains(outer: ts.Node, inner: ts.Node): boolean {
  return inner.getSourceFile() === outer.getSourceFile() && inner.pos >= outer.pos && inner.end <= outer.end;
}

/** The class a method belongs to. */
function classOf(fn: ts.FunctionLikeDeclaration): ts.ClassLikeDeclaration | undefined {
  return ts.isClassLike(fn.parent) ? fn.parent : undefined;
}

/** A value that is only a transaction input (a parameter), nothing the walk knows more of. */
function isInputValue(v: Value): boolean {
  return v.sources.length === 1 && v.sources[0].kind === "input" && !!v.sources[0].name &&
    !v.obj && !v.props && !v.items && !v.handle && !v.qb && !v.closure && !v.isThis;
}

/** A value that holds what a statement or effect gave (a loaded row, a generated key). */
function carriesResult(v: Value): boolean {
  return !!v.obj || v.sources.some((s) => s.kind === "result" || s.kind === "generated" || s.kind === "external");
}
