// The checker's answers kept per node. ts-plugin asks about the same nodes again and again (a
// helper walked for each transaction and each calling context, every call site's callee
// resolved by the walk, the autocommit call graph and the hierarchy): on vendure's core 95% of
// about 780,000 `getSymbolAtLocation` calls and of 120,000 `getResolvedSignature` calls are
// repeats. The compiler caches little of this itself (an identifier's symbol is looked up
// through its scopes at every call), so each answer is kept here, per node, for the program's
// life. The answers are the checker's own: a program does not change once built.
import * as ts from "typescript";

/** The compiler's own number for a node (assigned on first use: every node has the field from
 *  its creation, so assigning it changes no node's shape). Internal to the compiler; when a
 *  version lacks it, nodes are keyed by identity. */
const nodeIdOf = (ts as unknown as { getNodeId?: (n: ts.Node) => number }).getNodeId;

/** Stands for an `undefined` answer in a NodeTable (a hole is a question not asked yet). */
const NONE = Symbol("none");

/** Answers per page of a NodeTable: 1,024 slots (8 KB), small enough to be allocated and
 *  collected as ordinary objects. */
const PAGE_BITS = 10;
const PAGE_SIZE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SIZE - 1;

type Slot<R> = R | typeof NONE | undefined;

/**
 * Answers kept per node, indexed by the node's number: the walks look answers up at nearly every
 * node they meet, and an index costs less than hashing the node in a Map. The slots are cut into
 * pages, made when a number in their range is first kept. One array for all numbers grew by
 * copying itself once a new number passed its end: on an application of 1.5 million lines, each
 * table's array held 400,000 slots, and a walk that met a few thousand new nodes made every
 * table copy its array (27 MB at once, in the large object space, garbage until the next full
 * collection); a page never moves.
 */
export class NodeTable<R> {
  private readonly pages: (Slot<R>[] | undefined)[] = [];
  private readonly byNode = nodeIdOf ? undefined : new Map<ts.Node, R | typeof NONE>();

  /** The kept answer, `NONE` when it is `undefined`, `undefined` when none is kept. */
  private lookup(n: ts.Node): Slot<R> {
    if (this.byNode) return this.byNode.get(n);
    const id = nodeIdOf!(n);
    const number = id >> PAGE_BITS;
    const page = number < this.pages.length ? this.pages[number] : undefined;
    return page === undefined ? undefined : page[id & PAGE_MASK];
  }

  private keep(n: ts.Node, r: R | typeof NONE): void {
    if (this.byNode) {
      this.byNode.set(n, r);
      return;
    }
    const id = nodeIdOf!(n);
    const number = id >> PAGE_BITS;
    // grown with explicit `undefined`s: an array with holes far apart turns into a dictionary
    while (this.pages.length <= number) this.pages.push(undefined);
    let page = this.pages[number];
    if (page === undefined) this.pages[number] = page = new Array<Slot<R>>(PAGE_SIZE).fill(undefined);
    page[id & PAGE_MASK] = r;
  }

  /** The kept answer; `undefined` when none is kept (or the one kept is `undefined`). */
  peek(n: ts.Node): R | undefined {
    const r = this.lookup(n);
    return r === NONE ? undefined : r;
  }

  set(n: ts.Node, r: R): void {
    this.keep(n, r === undefined ? NONE : r);
  }

  /** The answer for `n`, computed once (`undefined` answers kept too). */
  get(n: ts.Node, compute: (n: ts.Node) => R): R {
    const r = this.lookup(n);
    if (r !== undefined) return (r === NONE ? undefined : r) as R;
    const fresh = compute(n);
    this.keep(n, fresh === undefined ? NONE : fresh);
    return fresh;
  }
}

function memoByNode<N extends ts.Node, R>(f: (n: N) => R): (n: N) => R {
  const kept = new NodeTable<R>();
  return (n: N) => kept.get(n, f as (n: ts.Node) => R);
}

/** One argument -> answer, `undefined` answers included. */
function memo1<A, R>(f: (a: A) => R): (a: A) => R {
  const kept = new Map<A, R>();
  return (a: A) => {
    const r = kept.get(a);
    if (r !== undefined || kept.has(a)) return r as R;
    const fresh = f(a);
    kept.set(a, fresh);
    return fresh;
  };
}

/** A checker answering the per-node questions ts-plugin asks from a cache, and every other
 *  question as the checker does (it is the checker's prototype). */
export function memoizedChecker(checker: ts.TypeChecker): ts.TypeChecker {
  const out = Object.create(checker) as ts.TypeChecker;
  out.getSymbolAtLocation = memoByNode(checker.getSymbolAtLocation);
  out.getTypeAtLocation = memoByNode(checker.getTypeAtLocation);
  out.getAliasedSymbol = memo1(checker.getAliasedSymbol);
  out.getShorthandAssignmentValueSymbol = memo1(checker.getShorthandAssignmentValueSymbol) as typeof checker.getShorthandAssignmentValueSymbol;
  out.getReturnTypeOfSignature = memo1(checker.getReturnTypeOfSignature);
  const signature = memoByNode((call: ts.CallLikeExpression) => checker.getResolvedSignature(call));
  // with a candidates array or an argument count the question differs: asked as is
  out.getResolvedSignature = (call, candidates?, argumentCount?) =>
    candidates === undefined && argumentCount === undefined ? signature(call) : checker.getResolvedSignature(call, candidates, argumentCount);
  return out;
}
