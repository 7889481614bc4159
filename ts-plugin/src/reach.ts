// Effects beyond the depth limit. A call the walk does not follow because of the depth limit
// is still searched, without data flow, for catalogued external effects in what it can run:
// its body, the application functions it calls, and the implementations of the interface
// methods it calls (hierarchy.ts), a bounded number of calls deep. An effect found there is
// reported at the call (the walker's depth-limit branch), so the depth limit never hides a
// call to Redis or HTTP; the call stays `depth-limit` unresolved as well (its statements are
// still unknown). Timers are left out: a sleep counts only where the transaction awaits it.
import * as ts from "typescript";
import { matchEffect } from "./catalog/effects";
import { HierarchyIndex } from "./hierarchy";
import { calledDeclaration } from "./callee-names";
import { OriginResolver } from "./names";

/** how many calls below the cut-off call are searched */
const REACH_DEPTH = 8;
/** syntax nodes visited per search, at most */
const REACH_NODES = 20_000;

export interface ReachedEffect {
  category: string;
  callee: string;
}

export class EffectReach {
  private memo = new Map<ts.FunctionLikeDeclaration, ReachedEffect | null>();
  private active = new Set<ts.FunctionLikeDeclaration>();

  constructor(
    private checker: ts.TypeChecker,
    private origins: OriginResolver,
    private hierarchy: HierarchyIndex,
    private isAppFile: (sf: ts.SourceFile) => boolean,
    private userEffects: ReadonlyMap<string, string>,
  ) {}

  /** The first external effect `fn` can reach, if any. */
  of(fn: ts.FunctionLikeDeclaration): ReachedEffect | undefined {
    const state = { nodes: REACH_NODES, cut: false };
    return this.search(fn, REACH_DEPTH, state) ?? undefined;
  }

  /** `state.cut`: the search stopped somewhere (depth, budget, recursion), so a null found
   *  under it proves nothing and is not remembered. */
  private search(fn: ts.FunctionLikeDeclaration, depth: number, state: { nodes: number; cut: boolean }): ReachedEffect | null {
    if (this.memo.has(fn)) return this.memo.get(fn)!;
    if (!fn.body) return null;
    if (depth < 0 || this.active.has(fn)) {
      state.cut = true;
      return null;
    }
    this.active.add(fn);
    const outerCut = state.cut;
    state.cut = false;
    let found: ReachedEffect | null = null;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (--state.nodes < 0) {
        state.cut = true;
        return;
      }
      if (ts.isCallExpression(n)) found = this.ofCall(n, depth, state);
      if (!found) ts.forEachChild(n, visit);
    };
    try {
      visit(fn.body);
    } finally {
      this.active.delete(fn);
    }
    if (found || !state.cut) this.memo.set(fn, found);
    state.cut ||= outerCut;
    return found;
  }

  private ofCall(call: ts.CallExpression, depth: number, state: { nodes: number; cut: boolean }): ReachedEffect | null {
    const origin = this.origins.ofExpression(call.expression);
    if (origin) {
      const m = matchEffect(origin.module, origin.path, this.userEffects);
      if (m && m.category !== "sleep") return m;
    }
    for (const fn of this.targets(call)) {
      const r = this.search(fn, depth - 1, state);
      if (r) return r;
    }
    return null;
  }

  /** Application functions a call can run: its declaration's implementation, or the
   *  implementations of an interface or abstract method. */
  private targets(call: ts.CallExpression): ts.FunctionLikeDeclaration[] {
    const decl = calledDeclaration(this.checker, call);
    if (!decl || decl.getSourceFile().isDeclarationFile || !this.isAppFile(decl.getSourceFile())) return [];
    if (ts.isFunctionLike(decl) && (decl as ts.FunctionLikeDeclaration).body) return [decl as ts.FunctionLikeDeclaration];
    const d = this.hierarchy.dispatch(call);
    return d ? d.targets.flatMap((t) => (t.fn ? [t.fn] : [])) : [];
  }
}
