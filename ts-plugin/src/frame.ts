// A frame of the data-flow walk: the bindings of one function activation (closures see their
// defining frame through `parent`), where its steps go (`sink`), and its call chain (`via`).
import * as ts from "typescript";
import { Step } from "./ir";
import { Value } from "./values";

export class Frame {
  env = new Map<ts.Symbol, Value>();
  returns: Value[] = [];
  inPromiseExecutor = false;
  constructor(
    public fn: ts.FunctionLikeDeclaration | undefined,
    public via: string[],
    public depth: number,
    public stack: ts.Node[],
    public thisValue: Value | undefined,
    public sink: Step[],
    public parent: Frame | undefined,
  ) {}
  lookup(sym: ts.Symbol): Value | undefined {
    let f: Frame | undefined = this;
    while (f) {
      const v = f.env.get(sym);
      if (v) return v;
      f = f.parent;
    }
    return undefined;
  }
  /** assign to the frame that holds the binding (closures write to their defining frame) */
  assign(sym: ts.Symbol, v: Value): void {
    let f: Frame | undefined = this;
    while (f) {
      if (f.env.has(sym)) {
        f.env.set(sym, v);
        return;
      }
      f = f.parent;
    }
    this.env.set(sym, v);
  }
}
