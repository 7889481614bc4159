// The calls and functions of an application's files, in source order, gathered in one walk of
// the trees for the passes of the boundary finder that look at nothing else (boundaries.ts):
// that walk is the finder's first pass, the others read the outline. Each call is kept with its
// owner: the function (arrow, function expression or declaration, method) whose body holds it
// with no such function in between, which is the call set a walk of that body that stops at
// nested functions would meet.
import * as ts from "typescript";

/** The functions that own calls: a constructor's or accessor's calls are those of the function
 *  around it (as a walk of that function's body meets them). */
export function isOwningFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);
}

export class CallOutline {
  /** every call expression, in source order (a call before the calls inside it) */
  readonly calls: ts.CallExpression[] = [];
  /** the owner of each call of `calls`, at the same index; undefined: no function's body holds
   *  it that way (top-level code, a parameter's default value or decorator) */
  readonly owners: (ts.FunctionLikeDeclaration | undefined)[] = [];
  /** functions with a body, in source order */
  readonly functions: ts.FunctionLikeDeclaration[] = [];

  /** Walks the files' trees, every node in source order (a node before its children) handed to
   *  `visit` and the calls and functions recorded. */
  static walk(files: ReadonlyArray<ts.SourceFile>, visit: (n: ts.Node) => void): CallOutline {
    const outline = new CallOutline();
    const step = (n: ts.Node, owner: ts.FunctionLikeDeclaration | undefined): void => {
      visit(n);
      if (ts.isCallExpression(n)) {
        outline.calls.push(n);
        outline.owners.push(owner);
      }
      if (isOwningFunction(n)) {
        if (n.body) outline.functions.push(n);
        // its body's calls are its own; those of its parameters and decorators are no function's
        ts.forEachChild(n, (c) => step(c, c === n.body ? n : undefined));
      } else {
        ts.forEachChild(n, (c) => step(c, owner));
      }
    };
    for (const sf of files) step(sf, undefined);
    return outline;
  }

  /** Each owner's calls, in source order. */
  callsByOwner(): Map<ts.FunctionLikeDeclaration, ts.CallExpression[]> {
    const out = new Map<ts.FunctionLikeDeclaration, ts.CallExpression[]>();
    this.calls.forEach((call, i) => {
      const owner = this.owners[i];
      if (!owner) return;
      let list = out.get(owner);
      if (!list) out.set(owner, (list = []));
      list.push(call);
    });
    return out;
  }
}
