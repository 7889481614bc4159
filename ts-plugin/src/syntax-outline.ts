// The nodes the entity index, the boundary finder and the class hierarchy look at, gathered in
// one walk of the application's trees, in source order (entities.ts, boundaries.ts,
// hierarchy.ts): each of their passes read these lists, where they walked every tree again (on
// vendure's core, six or seven walks of 639 files). Each call is kept with its owner: the
// function (arrow, function expression or declaration, method) whose body holds it with no such
// function in between, which is the call set a walk of that body that stops at nested functions
// would meet.
import * as ts from "typescript";

/** The functions that own calls: a constructor's or accessor's calls are those of the function
 *  around it (as a walk of that function's body meets them). */
export function isOwningFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);
}

export class SyntaxOutline {
  /** every call expression, in source order (a call before the calls inside it) */
  readonly calls: ts.CallExpression[] = [];
  /** the owner of each call of `calls`, at the same index; undefined: no function's body holds
   *  it that way (top-level code, a parameter's default value or decorator) */
  readonly owners: (ts.FunctionLikeDeclaration | undefined)[] = [];
  /** functions with a body, in source order */
  readonly functions: ts.FunctionLikeDeclaration[] = [];
  /** calls and methods with a body, in source order (the boundary finder's first pass) */
  readonly callsAndMethods: (ts.CallExpression | ts.MethodDeclaration)[] = [];
  /** class declarations and `new` expressions, in source order (the entity index) */
  readonly classes: ts.ClassDeclaration[] = [];
  readonly news: ts.NewExpression[] = [];
  /** classes and interfaces with `extends`/`implements` clauses, and `new` expressions, in
   *  source order (the class hierarchy: links are made in this order) */
  readonly heirsAndNews: (ts.ClassDeclaration | ts.InterfaceDeclaration | ts.NewExpression)[] = [];

  static of(files: ReadonlyArray<ts.SourceFile>): SyntaxOutline {
    const outline = new SyntaxOutline();
    const step = (n: ts.Node, owner: ts.FunctionLikeDeclaration | undefined): void => {
      if (ts.isCallExpression(n)) {
        outline.calls.push(n);
        outline.owners.push(owner);
        outline.callsAndMethods.push(n);
      } else if (ts.isClassDeclaration(n)) {
        outline.classes.push(n);
        if (n.heritageClauses) outline.heirsAndNews.push(n);
      } else if (ts.isNewExpression(n)) {
        outline.news.push(n);
        outline.heirsAndNews.push(n);
      } else if (ts.isInterfaceDeclaration(n) && n.heritageClauses) {
        outline.heirsAndNews.push(n);
      }
      if (isOwningFunction(n)) {
        if (ts.isMethodDeclaration(n) && n.body) outline.callsAndMethods.push(n);
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
