// Autocommit transactions (TAXONOMY.md: "A statement outside any transaction runs in
// autocommit: it is a single-statement, one-shot transaction"). Every ORM call site that the
// application can reach outside an explicit transaction is reported once, as a transaction with
// boundary `autocommit` holding the statement(s) that call issues.
//
// Reachability, without inlining: the application's functions ("units": top-level functions,
// methods, constructors, accessors, and function expressions not nested in another function;
// nested callbacks belong to their unit) form a call graph. A unit is reached outside a
// transaction when no application code calls it (controllers, resolvers, handlers, jobs,
// scripts: the entry points), or when a unit reached outside calls it from outside an explicit
// transaction's region. The regions are those of boundaries.ts: a transaction callback, a
// query runner's start .. commit, a whole decorated method (@Transaction, @Transactional,
// request-context decorators), a wrapper's callback. A helper called both inside and outside
// a transaction is reached outside (and is also walked inside the transaction by walker.ts).
// Each reached unit is then walked once in `autocommit` mode (walker.ts): its calls into other
// units are not followed (they are units of their own), its statements outside the regions
// become autocommit transactions, one per call site.
import * as ts from "typescript";
import { BoundaryFinder, BoundarySite, JOINING_PROPAGATIONS } from "./boundaries";
import { REPOSITORY_METHODS } from "./catalog/statements";
import { declaredWithoutBody, implementationByName, libraryDeclaration, soleCallTarget, unresolvedImport } from "./callee-names";
import { baseClassOf, constructorOf } from "./hierarchy";
import { Frame } from "./frame";
import { DiagnosticRecord, Source, StatementStep, TransactionRecord } from "./ir";
import { calleeNameNode, endLineOf, lineOf, qualifiedName, stripParens, unalias } from "./names";
import { recordsNothing } from "./service-calls";
import { importedStaticMethod } from "./import-bindings";
import { memberOfUntypedValue } from "./untyped-calls";
import { normSources, Value } from "./values";
import { TransactionWalk, WalkEnv } from "./walker";

/** Calls that can issue a statement besides the repository methods (query builders, raw SQL,
 *  relation loaders): a unit calling none of them, nor a repository method, is not walked. A
 *  lazy relation loaded by `await order.customer` alone is therefore not seen (docs/SCOPE.md). */
const STATEMENT_CALLS: ReadonlySet<string> = new Set([
  ...Object.keys(REPOSITORY_METHODS), "getOne", "getOneOrFail", "getMany", "getManyAndCount", "getCount", "getExists", "getRawOne",
  "getRawMany", "getRawAndEntities", "execute", "stream", "query", "loadMany", "loadOne", "set", "add", "addAndRemove", "reload",
  "softRemove", "recover",
]);

/** Propagations under which a @Transactional method never runs in a transaction. */
const NON_TRANSACTIONAL = new Set(["NOT_SUPPORTED", "NEVER"]);

type FunctionNode = ts.FunctionLikeDeclaration;

export interface Region {
  pos: number;
  end: number;
}

interface Unit {
  fn: FunctionNode;
  /** the whole unit is an explicit transaction (a decorated method) */
  explicit: boolean;
  /** parts of the unit that run inside an explicit transaction */
  regions: Region[];
  /** units it calls: callee -> called from outside every region at least once */
  callees: Map<FunctionNode, boolean>;
  called: boolean;
}

export interface AutocommitResult {
  transactions: TransactionRecord[];
  diagnostics: DiagnosticRecord[];
}

/** `reuse` (the warm cache, warm-cache.ts) gives a unit's result without walking it when it can. */
export type UnitReuse = (fn: FunctionNode, regions: readonly Region[], walk: () => AutocommitResult) => AutocommitResult;

export function autocommitTransactions(env: WalkEnv, files: ReadonlyArray<ts.SourceFile>, boundaries: BoundaryFinder, reuse?: UnitReuse): AutocommitResult {
  const transactions: TransactionRecord[] = [];
  const diagnostics: DiagnosticRecord[] = [];
  const seen = new Set<string>();
  for (const unit of unitsToWalk(env, files, boundaries)) {
    const walkUnit = (): AutocommitResult => {
      if (recordsNothing(env, unit.fn)) {
        // what the walk would have read of the program: its own unit (the warm cache's reach)
        env.reads?.note(unit.fn);
        return { transactions: [], diagnostics: [] };
      }
      const walk = new AutocommitWalk(env, siteOf(unit), unit.regions);
      walk.run();
      return { transactions: walk.transactions(), diagnostics: walk.diagnostics.filter((d) => d.code === "internal-error") };
    };
    const found = reuse ? reuse(unit.fn, unit.regions, walkUnit) : walkUnit();
    diagnostics.push(...found.diagnostics);
    for (const tx of found.transactions) {
      if (seen.has(tx.id)) continue;
      seen.add(tx.id);
      transactions.push(tx);
    }
  }
  return { transactions, diagnostics };
}

/** The units to walk: reached outside every explicit transaction and able to issue a statement,
 *  in the order of `reachedOutside`. The call graph they were found on (every unit of the
 *  program with its callees) is left behind before the walks begin, which grow the heap most.
 *  Exported for ts-plugin/test/graph-callees.test.js. */
export function unitsToWalk(env: WalkEnv, files: ReadonlyArray<ts.SourceFile>, boundaries: BoundaryFinder): Pick<Unit, "fn" | "regions">[] {
  const classes: ts.ClassLikeDeclaration[] = [];
  const units = collectUnits(files, classes);
  markRegions(env.checker, units, boundaries);
  const names = calleeNames(env.checker, units, classes);
  for (const unit of units.values()) linkCalls(env.checker, unit, units, names, (n) => env.isAppFile(n.getSourceFile()));
  return reachedOutside(units, boundaries).filter((u) => mayIssueStatements(u.fn)).map((u) => ({ fn: u.fn, regions: u.regions }));
}

// ---------------------------------------------------------------- units and the call graph

function isUnitNode(n: ts.Node): n is FunctionNode {
  return (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) ||
    ts.isSetAccessor(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && !!(n as FunctionNode).body;
}

/** Units in source order (files sorted by the program; nodes by position); the named classes
 *  outside functions go to `classes`. */
function collectUnits(files: ReadonlyArray<ts.SourceFile>, classes: ts.ClassLikeDeclaration[]): Map<FunctionNode, Unit> {
  const units = new Map<FunctionNode, Unit>();
  const visit = (n: ts.Node, inFunction: boolean): void => {
    if (isUnitNode(n)) {
      if (!inFunction) units.set(n, { fn: n, explicit: false, regions: [], callees: new Map(), called: false });
      ts.forEachChild(n, (c) => visit(c, true));
      return;
    }
    if (!inFunction && ts.isClassLike(n) && n.name) classes.push(n);
    // a class nested in a function: its methods are still part of that function's unit
    ts.forEachChild(n, (c) => visit(c, inFunction));
  };
  for (const sf of files) visit(sf, false);
  return units;
}

/** The unit a function belongs to: itself, or the outermost function around it. */
function unitOf(fn: ts.Node, units: Map<FunctionNode, Unit>): Unit | undefined {
  let found: Unit | undefined;
  for (let cur: ts.Node | undefined = fn; cur; cur = cur.parent) {
    const u = units.get(cur as FunctionNode);
    if (u) found = u;
  }
  return found;
}

function regionOf(n: ts.Node): Region {
  return { pos: n.getStart(), end: n.getEnd() };
}

/** Explicit transactions, from the boundaries found: whole units or regions of units. */
function markRegions(checker: ts.TypeChecker, units: Map<FunctionNode, Unit>, boundaries: BoundaryFinder): void {
  for (const site of boundaries.sites) {
    const unit = unitOf(site.fn, units);
    if (!unit) continue;
    if (site.mode === "runner") {
      // from the start to the end of the function: an early commit on one path (`if (found)
      // { commit; return }`) does not end the transaction of the others
      unit.regions.push({ pos: site.anchor.getStart(), end: site.fn.getEnd() });
    } else if (!site.body) {
      // a decorated method: all of it is the transaction
      if (units.get(site.fn) === unit) unit.explicit = true;
      else unit.regions.push(regionOf(site.fn));
    } else if (ts.isFunctionLike(site.body)) {
      unit.regions.push(regionOf(site.body));
    } else {
      // a callback given by reference runs inside the transaction
      unit.regions.push(regionOf(site.body));
      const target = declarationOf(checker, site.body as ts.Expression);
      const callee = target && unitOf(target, units);
      if (callee && callee !== unit) callee.called = true; // reached only through the transaction
    }
  }
  // the implementation of a wrapper runs its callback inside the transaction it opens
  for (const w of boundaries.wrappers.values()) {
    const unit = unitOf(w.fn, units);
    if (unit && w.fn.body) unit.regions.push(regionOf(w.fn.body));
  }
}

/** Units by name, to resolve only the calls that may reach one of them (and, for a call on an
 *  untyped receiver, to name its candidates: the methods of that name). A class names the
 *  constructor `new` runs: its own, or, declaring none, its base class's. */
function calleeNames(checker: ts.TypeChecker, units: Map<FunctionNode, Unit>, classes: ReadonlyArray<ts.ClassLikeDeclaration>): Map<string, Unit[]> {
  const out = new Map<string, Unit[]>();
  const add = (name: string, u: Unit) => {
    const known = out.get(name);
    if (known) known.push(u);
    else out.set(name, [u]);
  };
  for (const [fn, u] of units) {
    const name = fn.name ?? (fn.parent && (ts.isVariableDeclaration(fn.parent) || ts.isPropertyDeclaration(fn.parent) || ts.isPropertyAssignment(fn.parent)) ? fn.parent.name : undefined);
    if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) add(name.text, u);
    if (ts.isConstructorDeclaration(fn) && ts.isClassLike(fn.parent) && fn.parent.name) add(fn.parent.name.text, u);
  }
  for (const cls of classes) {
    if (cls.members.some(ts.isConstructorDeclaration) || !cls.heritageClauses) continue;
    const ctor = constructorOf(checker, cls);
    const inherited = ctor && units.get(ctor);
    if (inherited) add(cls.name!.text, inherited);
  }
  return out;
}

/** A method called on a receiver typed `any` (a service resolved from a container by name)
 *  may be any method of that name; beyond this many it is too common a name to guess. */
const MAX_UNTYPED_CANDIDATES = 4;

function calleeName(e: ts.Expression): string | undefined {
  e = stripParens(e);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteral(e.argumentExpression)) return e.argumentExpression.text;
  return undefined;
}

function declarationOf(checker: ts.TypeChecker, e: ts.Expression, call?: ts.CallLikeExpression): ts.Node | undefined {
  let decl: ts.Node | undefined;
  if (call) {
    decl = soleImplementation(checker, call);
    // a callee declared without a body (an interface's method, a value of a function type):
    // whatever signature it resolves to, the declaration is the name's, below
    const name = ts.isCallExpression(call) ? calleeNameNode(call) : undefined;
    if (!decl && !unnamedCallee(checker, call) && !(name && declaredWithoutBody(checker, name))) {
      const sig = checker.getResolvedSignature(call);
      if (sig?.declaration && !ts.isJSDocSignature(sig.declaration)) decl = sig.declaration;
    }
  }
  if (!decl || !(decl as FunctionNode).body) {
    e = stripParens(e);
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === "bind") e = e.expression.expression;
    const found = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e);
    const sym = found && unalias(checker, found);
    decl = sym?.valueDeclaration ?? sym?.declarations?.[0] ?? decl;
  }
  if (!decl) return undefined;
  if (ts.isFunctionLike(decl) && !(decl as FunctionNode).body && decl.name) {
    // an overload signature: its implementation
    const sym = checker.getSymbolAtLocation(decl.name);
    decl = sym?.declarations?.find((d) => ts.isFunctionLike(d) && !!(d as FunctionNode).body) ?? decl;
  }
  if ((ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) && decl.initializer) {
    const init = stripParens(decl.initializer);
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) decl = init;
  }
  if (ts.isClassDeclaration(decl)) decl = decl.members.find((m) => ts.isConstructorDeclaration(m) && !!m.body) ?? decl;
  return decl;
}

/** The callee of a call whose name resolves to exactly one function or method with a body:
 *  that declaration is the one its signature would resolve to, found without resolving the
 *  signature (which makes the checker infer every argument, callbacks' bodies included: over
 *  all calls of an application, as much as a full type check). Anything else (overloads,
 *  unions, function-typed values, `new`) is left to the signature. */
function soleImplementation(checker: ts.TypeChecker, call: ts.CallLikeExpression): ts.Node | undefined {
  if (ts.isNewExpression(call)) return soleConstructor(checker, call);
  if (!ts.isCallExpression(call)) return undefined;
  // declared only in declaration files (a library's method): no body anywhere, no unit to find
  const name = calleeNameNode(call);
  return libraryDeclaration(checker, call) ?? soleCallTarget(checker, call) ?? (name && implementationByName(checker, name));
}

/** `new C(...)` of a class declared once: the constructor that runs when the declarations
 *  decide it (hierarchy.ts constructorOf: C's sole constructor with a body or, C declaring
 *  none, its base class's), which is the signature's declaration (an abstract class's `new`, an
 *  error, resolves to none, and the class then stands for the same constructor in
 *  declarationOf). Overloads, merged declarations and a value holding a class are left to the
 *  signature. */
function soleConstructor(checker: ts.TypeChecker, call: ts.NewExpression): ts.Node | undefined {
  const name = calleeNameNode(call);
  const found = name && checker.getSymbolAtLocation(name);
  const decls = (found && unalias(checker, found))?.declarations;
  if (!decls || decls.length !== 1 || !ts.isClassDeclaration(decls[0])) return undefined;
  return constructorOf(checker, decls[0]);
}

/** A call whose callee name the checker resolves to nothing (a member of an `any` receiver, a
 *  missing member, an import of a module the program lacks) and whose callee has no call signature: its signature, were it resolved,
 *  would be the checker's untyped or error signature, which has no declaration, after typing
 *  every argument for nothing. */
function unnamedCallee(checker: ts.TypeChecker, call: ts.CallLikeExpression): boolean {
  if (!ts.isCallExpression(call)) return false;
  const callee = stripParens(call.expression);
  const name = calleeNameNode(call);
  if (name && unresolvedImport(checker, name)) return true;
  if (!name || checker.getSymbolAtLocation(name)) return false;
  return checker.getTypeAtLocation(callee).getCallSignatures().length === 0;
}

/** The calls of one unit into other units, each marked inside/outside its regions. */
function linkCalls(checker: ts.TypeChecker, unit: Unit, units: Map<FunctionNode, Unit>, names: Map<string, Unit[]>, isApp: (n: ts.Node) => boolean): void {
  const inRegion = (n: ts.Node) => unit.explicit || unit.regions.some((r) => n.getStart() >= r.pos && n.getEnd() <= r.end);
  const link = (callee: Unit, at: ts.Node) => {
    if (callee === unit) return;
    callee.called = true;
    unit.callees.set(callee.fn, (unit.callees.get(callee.fn) ?? false) || !inRegion(at));
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword) {
      // `super(...)` runs the base class's constructor
      const cls = ts.findAncestor(n, ts.isClassLike);
      const base = cls && baseClassOf(checker, cls);
      const ctor = base && constructorOf(checker, base);
      const callee = ctor && isApp(ctor) ? unitOf(ctor, units) : undefined;
      if (callee) link(callee, n);
    } else if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const name = calleeName(n.expression);
      const candidates = name ? names.get(name) : undefined;
      if (candidates) {
        const { decl, untyped } = calleeOf(checker, n);
        const callee = decl && !decl.getSourceFile().isDeclarationFile && isApp(decl) ? unitOf(decl, units) : undefined;
        if (callee) link(callee, n);
        else if (!decl && untyped() && candidates.length <= MAX_UNTYPED_CANDIDATES) {
          for (const c of candidates) if (ts.isMethodDeclaration(c.fn)) link(c, n);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  if (unit.fn.body) visit(unit.fn.body);
  // parameters' defaults run in the unit too
  for (const p of unit.fn.parameters) if (p.initializer) visit(p.initializer);
}

/** What the call graph needs of a call: the declaration it reaches and, reaching none, whether
 *  its receiver is untyped (asked only then, as the checker is asked only then). */
export interface GraphCallee {
  decl: ts.Node | undefined;
  untyped: () => boolean;
}

/** From the declarations where they decide it (calleeFromDeclarations), from the checker
 *  otherwise (calleeByChecker); ts-plugin/test/graph-callees.test.js compares both. */
function calleeOf(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): GraphCallee {
  return calleeFromDeclarations(checker, call) ?? calleeByChecker(checker, call);
}

/** The answer for calls the checker would answer only after typing what the answer does not
 *  depend on: a static method called on a name bound from a dynamic import (the whole module
 *  typed, import-bindings.ts) and a member of an untyped call's result (its arguments typed,
 *  untyped-calls.ts). Undefined for any other call. */
export function calleeFromDeclarations(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): GraphCallee | undefined {
  if (!ts.isCallExpression(call)) return undefined;
  const imported = importedStaticMethod(checker, call.expression);
  if (imported) return { decl: imported, untyped: () => false };
  if (memberOfUntypedValue(checker, call.expression)) return { decl: undefined, untyped: () => true };
  return undefined;
}

export function calleeByChecker(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): GraphCallee {
  const decl = declarationOf(checker, call.expression, call);
  return { decl, untyped: () => !decl && untypedReceiver(checker, call.expression) };
}

function untypedReceiver(checker: ts.TypeChecker, e: ts.Expression): boolean {
  e = stripParens(e);
  if (!ts.isPropertyAccessExpression(e)) return false;
  return (checker.getTypeAtLocation(e.expression).flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
}

/** Units reached outside every explicit transaction, in a deterministic order. */
function reachedOutside(units: Map<FunctionNode, Unit>, boundaries: BoundaryFinder): Unit[] {
  const out = new Set<Unit>();
  const queue: Unit[] = [];
  const reach = (u: Unit) => {
    if (u.explicit || out.has(u)) return;
    out.add(u);
    queue.push(u);
  };
  for (const u of units.values()) {
    const propagation = boundaries.transactional.get(u.fn);
    if (!u.called || (propagation && NON_TRANSACTIONAL.has(propagation))) reach(u);
  }
  while (queue.length) {
    const u = queue.shift()!;
    for (const [callee, outside] of u.callees) {
      const v = units.get(callee)!;
      const propagation = boundaries.transactional.get(callee);
      if (outside && (!propagation || JOINING_PROPAGATIONS.has(propagation) || NON_TRANSACTIONAL.has(propagation))) reach(v);
    }
  }
  return [...units.values()].filter((u) => out.has(u));
}

/** A cheap text test: could the unit issue a statement at all? */
function mayIssueStatements(fn: FunctionNode): boolean {
  return textMayIssueStatements(fn.getText());
}

/** The same test on a text (the warm cache's shape of a member, warm-shape.ts). */
export function textMayIssueStatements(text: string): boolean {
  for (const m of text.matchAll(/\.\s*([A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\s*\(/g)) if (STATEMENT_CALLS.has(m[1])) return true;
  return false;
}

function siteOf(unit: Pick<Unit, "fn">): BoundarySite {
  return {
    boundary: "autocommit", mode: "autocommit", anchor: unit.fn, line: lineOf(unit.fn), endLine: endLineOf(unit.fn), fn: unit.fn,
    bind: [], options: {}, wrapper: null,
  };
}

// ---------------------------------------------------------------- the walk of one unit

/** The walk of one unit in autocommit mode: records each statement with its call site. */
class AutocommitWalk extends TransactionWalk {
  private readonly calls: { at: ts.Node; step: StatementStep }[] = [];

  constructor(env: WalkEnv, private readonly unitSite: BoundarySite, private readonly regions: Region[]) {
    super(env, unitSite);
  }

  override emitStatement(frame: Frame, at: ts.Node, h: Parameters<TransactionWalk["emitStatement"]>[2], s: Parameters<TransactionWalk["emitStatement"]>[3], many: boolean): Value {
    const unit = this.unitSite.fn;
    const outsideUnit = at.getSourceFile() !== unit.getSourceFile() || at.pos < unit.pos || at.end > unit.end;
    if (outsideUnit || this.regions.some((r) => at.getStart() >= r.pos && at.getEnd() <= r.end)) {
      return { sources: [{ kind: "unknown" }] }; // part of an explicit transaction, reported there
    }
    const v = super.emitStatement(frame, at, h, s, many);
    const last = frame.sink[frame.sink.length - 1];
    if (last && last.node === "statement" && v.sources[0]?.step === last.id) this.calls.push({ at, step: last });
    return v;
  }

  /** One transaction per call site, its statements renumbered; a call site walked twice (a
   *  closure called from two places) keeps the statements of its first walk. */
  transactions(): TransactionRecord[] {
    const bySite = new Map<string, { at: ts.Node; steps: StatementStep[] }>();
    for (const { at, step } of this.calls) {
      const start = at.getSourceFile().getLineAndCharacterOfPosition(at.getStart());
      // the file's relative path kept per source file (fileOf): asked for every statement
      const key = `${this.fileOf(at)}:${start.line + 1}:${start.character + 1}:autocommit`;
      const group = bySite.get(key) ?? { at, steps: [] };
      bySite.set(key, group);
      if (group.steps.some((s) => s.api === step.api && s.kind === step.kind && s.entity === step.entity)) continue;
      group.steps.push(step);
    }
    const out: TransactionRecord[] = [];
    for (const [id, { at, steps }] of bySite) {
      const holder = holdingFunction(at) ?? this.unitSite.fn;
      out.push({
        ir: 1, type: "transaction", id, file: this.fileOf(at), line: lineOf(at), end_line: endLineOf(at),
        function: qualifiedName(this.env.rootDir, holder), boundary: "autocommit", wrapper: null, options: {}, steps: renumber(steps),
      });
    }
    return out;
  }
}

function holdingFunction(n: ts.Node): FunctionNode | undefined {
  for (let cur = n.parent; cur; cur = cur.parent) if (ts.isFunctionLike(cur) && (cur as FunctionNode).body) return cur as FunctionNode;
  return undefined;
}

/** The statements of one call as a transaction of their own: ids from s1, no call chain, and
 *  results of statements outside it (earlier calls) are inputs, known before it starts. */
function renumber(steps: StatementStep[]): StatementStep[] {
  const ids = new Map(steps.map((s, i) => [s.id, `s${i + 1}`]));
  const source = (x: Source): Source => {
    if (!x.step) return x;
    const inside = ids.get(x.step);
    if (inside) return { ...x, step: inside };
    return { kind: "input", name: `${x.kind} of an earlier statement` };
  };
  const predicate = (p: StatementStep["predicate"]): StatementStep["predicate"] => {
    if (!p) return p;
    if ("attribute" in p) return { ...p, sources: normSources(p.sources.map(source)) };
    return { ...p, args: p.args.map((a) => predicate(a)!) };
  };
  return steps.map((s) => ({
    ...s, id: ids.get(s.id)!, via: [], predicate: predicate(s.predicate),
    values: s.values.map((v) => ({ ...v, sources: normSources(v.sources.map(source)) })),
    uses: s.uses.filter((u) => ids.has(u)).map((u) => ids.get(u)!),
  }));
}
