// Class-hierarchy analysis for calls whose receiver is typed by an interface or an abstract
// class of the application (`this.strategy.set(...)` with `strategy: SessionCacheStrategy`).
// The method that runs is the one of the object's class, chosen at run time: every concrete
// class of the application that descends from the receiver's type is a candidate. A class
// descends by `extends`/`implements`, or structurally where the application puts an instance
// of it in a place typed by the interface: a default configuration object
// (`{ sessionCacheStrategy: new DefaultSessionCacheStrategy() }`), an annotated variable or
// property, an argument. The walker walks each candidate in an arm of a branch (walker.ts).
import * as path from "path";
import * as ts from "typescript";
import { calledDeclaration } from "./callee-names";
import { NodeTable } from "./checker-memo";
import { calleeNameNode, qualifiedName, stripParens, unalias } from "./names";
import { SyntaxOutline } from "./syntax-outline";

/** Beyond this many candidates the call is reported unresolved (`dynamic-dispatch`) instead,
 *  as the Django front end does (analyzer/django/dispatch.py). */
export const MAX_CANDIDATES = 8;

export interface DispatchTarget {
  cls: ts.ClassDeclaration;
  /** the implementation the class runs; undefined when it is inherited from library code */
  fn: ts.FunctionLikeDeclaration | undefined;
  /** qualified name of the class's method, for unresolved steps */
  name: string;
}

export interface Dispatch {
  /** the interface method called: `src.config.SessionCacheStrategy.set` */
  label: string;
  targets: DispatchTarget[];
}

type TypeDecl = ts.ClassDeclaration | ts.InterfaceDeclaration;

/** Test code of the application (end-to-end fixtures, mocks, specs): its implementations do
 *  not run in production, so they are no candidates. */
const TEST_CODE = /(^|\/)(e2e|tests?|__tests__|__mocks__|mocks?|fixtures|testing)\/|\.(spec|test|mock|e2e-spec)\.[cm]?[jt]sx?$|(^|\/)(testing|mock)-[^/]*$/;

export class HierarchyIndex {
  /** a type's direct descendants: classes and interfaces that extend or implement it, and
   *  classes whose instances are put where it is expected */
  private children = new Map<ts.Symbol, Set<TypeDecl>>();
  private cache = new Map<string, Dispatch | null>();
  /** each call's answer: the walks ask at every walk of a call site */
  private byCall = new NodeTable<Dispatch | undefined>();

  /** the `new`s that linked a class below a type, in source order (warm-links.ts keeps them) */
  readonly linkingNews: ts.NewExpression[] = [];
  /** how many `new`s the checker was asked about (the others were known to link nothing) */
  checkedNews = 0;

  /** `outline`: the syntax outline of the application's files (syntax-outline.ts), whose
   *  heritage clauses and `new`s are linked in source order. `mayLink`: false for a `new`
   *  known to link nothing (warm-links.ts), which the checker is then not asked about. */
  constructor(private checker: ts.TypeChecker, private rootDir: string, outline: SyntaxOutline, private isAppFile: (sf: ts.SourceFile) => boolean,
    mayLink: (n: ts.NewExpression) => boolean = () => true) {
    for (const n of outline.heirsAndNews) {
      if (!ts.isNewExpression(n)) {
        for (const h of n.heritageClauses!) for (const t of h.types) this.link(this.symbolOf(t.expression), n);
      } else if (mayLink(n)) {
        this.checkedNews++;
        if (this.linkStructural(n)) this.linkingNews.push(n);
      }
    }
  }

  private link(parent: ts.Symbol | undefined, child: TypeDecl): void {
    if (!parent) return;
    let set = this.children.get(parent);
    if (!set) this.children.set(parent, (set = new Set()));
    set.add(child);
  }

  /** `new C()` where an application interface or abstract class is expected. Whether it
   *  linked the class below one. */
  private linkStructural(n: ts.NewExpression): boolean {
    const cls = this.appType(this.symbolOf(n.expression));
    if (!cls || !ts.isClassDeclaration(cls)) return false;
    if (this.argumentLinksNothing(n, cls)) return false;
    const expected = this.checker.getContextualType(n);
    if (!expected || expected.isUnion()) return false;
    const target = expected.getSymbol();
    const decl = this.appType(target);
    if (!decl || decl === cls || !target) return false;
    const parent = unalias(this.checker, target);
    this.link(parent, cls);
    return parent !== undefined;
  }

  /**
   * `publish(new OrderEvent(...))`: an argument whose expected type the declarations of the
   * callee decide without resolving the call's signature (which types every argument of the
   * call: most of the hierarchy's cost). It decides nothing new when every declaration of the
   * callee takes, at that position, an array (a library type) or a type parameter of its own
   * that no other parameter mentions: that parameter's type is inferred from this argument (the
   * class itself), or, when the class does not satisfy its constraint, is the constraint, which
   * must then be a library type, the class itself, an ancestor the class already descends from
   * (the link would repeat one), or an alias of a type that is never an application class.
   */
  private argumentLinksNothing(n: ts.NewExpression, cls: ts.ClassDeclaration): boolean {
    const call = n.parent;
    if (!ts.isCallExpression(call) || call.typeArguments) return false;
    const index = call.arguments.indexOf(n);
    if (index < 0 || call.arguments.some((a, i) => i <= index && ts.isSpreadElement(a))) return false;
    const name = calleeNameNode(call);
    const found = name && this.checker.getSymbolAtLocation(name);
    const sym = found && unalias(this.checker, found);
    // a member of a union of types is a symbol made by the checker: its signatures are combined
    if (!sym || sym.flags & ts.SymbolFlags.Transient || !sym.declarations?.length) return false;
    return sym.declarations.every((d) => this.inferredFromArgument(d, index, cls));
  }

  private inferredFromArgument(d: ts.Declaration, index: number, cls: ts.ClassDeclaration): boolean {
    if (!(ts.isMethodDeclaration(d) || ts.isMethodSignature(d) || ts.isFunctionDeclaration(d))) return false;
    const params = d.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this"));
    if (params.length !== d.parameters.length) return false; // a `this` parameter may mention a type parameter
    const p = params[index];
    if (!p || p.dotDotDotToken || !p.type) return false;
    // an array, unless the application declares `Array` itself (a global augmentation)
    if (ts.isArrayTypeNode(p.type)) return !this.appType(this.checker.getTypeFromTypeNode(p.type).getSymbol());
    if (!ts.isTypeReferenceNode(p.type) || p.type.typeArguments || !ts.isIdentifier(p.type.typeName)) return false;
    const own = p.type.typeName.text;
    const tp = d.typeParameters?.find((t) => t.name.text === own);
    if (!tp || params.some((q) => q !== p && q.type && mentions(q.type, own))) return false;
    return !tp.constraint || this.constraintLinksNothing(tp.constraint, cls);
  }

  private constraintLinksNothing(c: ts.TypeNode, cls: ts.ClassDeclaration): boolean {
    if (!ts.isTypeReferenceNode(c)) return false;
    const found = this.checker.getSymbolAtLocation(c.typeName);
    const sym = found && unalias(this.checker, found);
    if (!sym?.declarations?.length) return false;
    if (sym.declarations.every((d) => ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d))) {
      const decl = this.appType(sym);
      return !decl || decl === cls || this.descendsFrom(cls, sym);
    }
    // an alias of a mapped type, or of a union with an object literal type: an instance of it
    // is a union, a mapped or primitive type, never an application class or interface
    if (sym.declarations.length !== 1) return false;
    const alias = sym.declarations[0];
    if (!ts.isTypeAliasDeclaration(alias)) return false;
    const objectLiteral = (t: ts.TypeNode) => ts.isMappedTypeNode(t) || ts.isTypeLiteralNode(t);
    return ts.isMappedTypeNode(alias.type) || (ts.isUnionTypeNode(alias.type) && alias.type.types.some(objectLiteral));
  }

  /** Whether the links made from `extends`/`implements` already put the class below `ancestor`. */
  private descendsFrom(cls: TypeDecl, ancestor: ts.Symbol): boolean {
    const seen = new Set<ts.Symbol>();
    const up = (d: TypeDecl): boolean => {
      for (const h of d.heritageClauses ?? []) {
        for (const t of h.types) {
          const parent = this.symbolOf(t.expression);
          if (!parent || seen.has(parent)) continue;
          if (parent === ancestor) return true;
          seen.add(parent);
          for (const pd of parent.declarations ?? []) {
            if ((ts.isClassDeclaration(pd) || ts.isInterfaceDeclaration(pd)) && this.isAppFile(pd.getSourceFile()) && up(pd)) return true;
          }
        }
      }
      return false;
    };
    return up(cls);
  }

  private symbolOf(e: ts.Expression): ts.Symbol | undefined {
    const found = this.checker.getSymbolAtLocation(stripParens(e));
    return found && unalias(this.checker, found);
  }

  /** The application class or interface a symbol names. */
  private appType(sym: ts.Symbol | undefined): TypeDecl | undefined {
    const decl = sym?.declarations?.find((d): d is TypeDecl => ts.isClassDeclaration(d) || ts.isInterfaceDeclaration(d));
    return decl && this.isAppFile(decl.getSourceFile()) ? decl : undefined;
  }

  /** Concrete classes that descend from a type, in source order. */
  implementations(root: ts.Symbol): ts.ClassDeclaration[] {
    const out = new Set<ts.ClassDeclaration>();
    const seen = new Set<ts.Symbol>([root]);
    const queue = [root];
    while (queue.length) {
      const sym = queue.shift()!;
      for (const d of this.children.get(sym) ?? []) {
        if (ts.isClassDeclaration(d) && !(ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Abstract) && !this.isTestCode(d)) out.add(d);
        const s = d.name && this.checker.getSymbolAtLocation(d.name);
        if (s && !seen.has(s)) {
          seen.add(s);
          queue.push(s);
        }
      }
    }
    return [...out].sort((a, b) => cmp(a.getSourceFile().fileName, b.getSourceFile().fileName) || a.pos - b.pos);
  }

  private isTestCode(d: ts.Node): boolean {
    const rel = path.relative(this.rootDir, d.getSourceFile().fileName).split(path.sep).join("/");
    return TEST_CODE.test(rel);
  }

  /** The candidates of a call on an interface or abstract method of the application, or
   *  undefined when the call is not one (or no class of the application implements it). */
  dispatch(call: ts.CallExpression): Dispatch | undefined {
    return this.byCall.get(call, () => this.dispatchOf(call));
  }

  private dispatchOf(call: ts.CallExpression): Dispatch | undefined {
    const callee = stripParens(call.expression);
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    const owner = this.abstractOwner(call);
    if (!owner) return undefined;
    const root = this.receiverType(callee.expression, owner) ?? owner;
    const name = callee.name.text;
    const key = `${symbolKey(root)}#${name}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const targets: DispatchTarget[] = [];
    const fns = new Set<ts.FunctionLikeDeclaration>();
    for (const cls of this.implementations(root)) {
      const fn = this.method(cls, name);
      if (fn && fns.has(fn)) continue; // inherited from a base already listed
      if (fn) fns.add(fn);
      targets.push({ cls, fn, name: `${qualifiedName(this.rootDir, cls)}.${name}` });
    }
    const rootDecl = this.appType(root)!;
    const owned = qualifiedName(this.rootDir, rootDecl);
    const label = ts.isInterfaceDeclaration(rootDecl) ? `${owned}.${rootDecl.name.text}.${name}` : `${owned}.${name}`;
    const found = targets.length ? { label, targets } : null;
    this.cache.set(key, found);
    return found ?? undefined;
  }

  /** The interface or abstract class whose body-less method the call resolves to. */
  private abstractOwner(call: ts.CallExpression): ts.Symbol | undefined {
    const decl = calledDeclaration(this.checker, call);
    if (!decl || decl.getSourceFile().isDeclarationFile || !this.isAppFile(decl.getSourceFile())) return undefined;
    let member: ts.Node = decl;
    // a property typed by a function type: `set: (s: Session) => Promise<void>`
    if (ts.isFunctionTypeNode(decl) && (ts.isPropertySignature(decl.parent) || ts.isPropertyDeclaration(decl.parent))) member = decl.parent;
    else if (!ts.isMethodSignature(decl) && !(ts.isMethodDeclaration(decl) && !decl.body)) return undefined;
    if (ts.isMethodDeclaration(member)) {
      // an overload signature whose implementation is there is not abstract
      const sym = member.name && this.checker.getSymbolAtLocation(member.name);
      if (sym?.declarations?.some((d) => ts.isFunctionLike(d) && !!(d as ts.FunctionLikeDeclaration).body)) return undefined;
    }
    const holder = member.parent;
    if (!(ts.isInterfaceDeclaration(holder) || ts.isClassDeclaration(holder)) || !holder.name) return undefined;
    const sym = this.checker.getSymbolAtLocation(holder.name);
    return sym && unalias(this.checker, sym);
  }

  /** The receiver's own declared type when it is an application type below the owner (a
   *  narrower interface has fewer implementations). */
  private receiverType(recv: ts.Expression, owner: ts.Symbol): ts.Symbol | undefined {
    const t = this.checker.getTypeAtLocation(recv);
    if (t.isUnion()) return undefined;
    const sym = t.getSymbol() ?? t.aliasSymbol;
    return sym && sym !== owner && this.appType(sym) ? unalias(this.checker, sym) : undefined;
  }

  private method(cls: ts.ClassDeclaration, name: string): ts.FunctionLikeDeclaration | undefined {
    return implementationOf(this.checker, cls, name, (d) => this.isAppFile(d.getSourceFile()));
  }
}

/** The implementation of `name` a class runs: its own method (or arrow-function property) or
 *  one of its application base classes'. */
export function implementationOf(
  checker: ts.TypeChecker, cls: ts.ClassLikeDeclaration, name: string, inApp: (d: ts.Node) => boolean = () => true,
): ts.FunctionLikeDeclaration | undefined {
  let c: ts.ClassLikeDeclaration | undefined = cls;
  for (let i = 0; c && i < 10; i++) {
    for (const m of c.members) {
      if (!m.name || m.name.getText() !== name) continue;
      if (ts.isMethodDeclaration(m) && m.body) return m;
      if (ts.isPropertyDeclaration(m) && m.initializer) {
        const init = stripParens(m.initializer);
        if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
      }
    }
    c = baseClassOf(checker, c, inApp);
  }
  return undefined;
}

/** The class a class `extends`, when its `extends` names one (of the application, per `inApp`). */
export function baseClassOf(
  checker: ts.TypeChecker, cls: ts.ClassLikeDeclaration, inApp: (d: ts.Node) => boolean = () => true,
): ts.ClassLikeDeclaration | undefined {
  const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
  const found = ext && checker.getSymbolAtLocation(ext.expression);
  const base = found && unalias(checker, found);
  return base?.declarations?.find((d: ts.Declaration): d is ts.ClassLikeDeclaration => ts.isClassLike(d) && inApp(d));
}

/** The constructor `new C(...)` runs, when the declarations decide it: C's own when it declares
 *  exactly one and that has a body; when C declares none, its base class's, by the same rule
 *  (the base's constructor is the one that runs). undefined: overloads, no constructor in the
 *  chain (the default one), a base that is not a class declaration (a mixin call, a library). */
export function constructorOf(checker: ts.TypeChecker, cls: ts.ClassLikeDeclaration): ts.ConstructorDeclaration | undefined {
  const seen = new Set<ts.ClassLikeDeclaration>();
  for (let c: ts.ClassLikeDeclaration | undefined = cls; c && !seen.has(c); c = baseClassOf(checker, c)) {
    seen.add(c);
    const ctors = c.members.filter(ts.isConstructorDeclaration);
    if (ctors.length > 0) return ctors.length === 1 && ctors[0].body ? ctors[0] : undefined;
  }
  return undefined;
}

/** Whether a type node names `name` anywhere (`T`, `T[]`, `Promise<T>`, `{ a: T }`). */
function mentions(t: ts.Node, name: string): boolean {
  if (ts.isIdentifier(t) && t.text === name) return true;
  return !!ts.forEachChild(t, (c) => mentions(c, name) || undefined);
}

function symbolKey(s: ts.Symbol): string {
  const d = s.declarations?.[0];
  return d ? `${d.getSourceFile().fileName}:${d.pos}` : s.name;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
