// Arguments of metadata decorators, left out of the program. An application may annotate every
// entity column with decorators of its own that only record their argument as reflection
// metadata or on the class (`@ColumnAccessControl({ read: [Permission.A, ...] })` whose factory
// is `(x) => Reflect.metadata(key, x)`, or `(x) => (ctr) => { ctr.prototype.acl = x; }`): in one
// application these arguments are 400,000 syntax nodes, a seventh of the program, parsed and
// bound for nothing. Nothing txscan reports reads them: such a decorator applies no TypeORM
// decorator (entities.ts follows a decorator's
// factory only for calls of TypeORM's), opens no transaction (request-context.ts follows it
// only for Nest enhancers), holds no call, function or `new` (no call edge, unit or
// implementation for autocommit.ts and hierarchy.ts), and the object literals the indexes
// look for anywhere (providers, the query cache) are kept by their keys. Such an argument's
// object or array literal is blanked like a migration's bodies (migration-bodies.ts): every
// character inside the brackets but line breaks becomes a space, so positions and lines stay.
import * as path from "path";
import * as ts from "typescript";
import { blankSpans } from "./migration-bodies";
import { skipParentheses } from "./names";

/** Decorators some index reads by name alone, whatever their factory (handles.ts,
 *  providers.ts): never blanked. */
const READ_BY_NAME = new Set(["EntityRepository", "Inject", "CommandHandler", "QueryHandler", "EventsHandler"]);

/** Keys of object literals that an index looks for in any object literal (providers.ts,
 *  query-cache.ts): an argument holding one is kept. */
const SCANNED_KEYS = new Set(["provide", "useClass", "useExisting", "useFactory", "useValue", "cache"]);

/** A module that may export a function by `export default` or `export const` (parsed only then). */
const FACTORY_EXPORT = /\bexport\s+(?:default|const\s+[\w$]+\s*(?::[^=]*)?=)\s*(?:async\b\s*)?(?:\(|function\b|<|[\w$]+\s*=>)/;

/** `@Name(` followed by an object or array literal: the only decorators worth a look. */
const CANDIDATE = /@\s*([A-Za-z_$][\w$]*)\s*\(\s*[{[]/g;

export interface DecoratorSources {
  /** the app source file a module specifier resolves to from `containingFile` (not a
   *  declaration file, not a package), or undefined */
  resolve(specifier: string, containingFile: string): string | undefined;
  /** the text of an app source file, or undefined when it cannot be read */
  read(file: string): string | undefined;
}

export class MetadataDecorators {
  /** per factory module: its exports ("default" or the name) that are metadata factories */
  private readonly factories = new Map<string, ReadonlySet<string>>();

  constructor(private readonly sources: DecoratorSources, private readonly languageVersion: ts.ScriptTarget) {}

  /** The text with the metadata decorators' literal arguments blanked, or undefined to keep
   *  it as it is (no such argument, or a syntax error: reported on the original text). */
  blanked(fileName: string, text: string): string | undefined {
    const names = new Set<string>();
    for (const m of text.matchAll(CANDIDATE)) if (!READ_BY_NAME.has(m[1])) names.add(m[1]);
    if (names.size === 0 || !this.mayImportFactory(fileName, text)) return undefined;
    const sf = ts.createSourceFile(fileName, text, this.languageVersion, true);
    if ((sf as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics.length > 0) return undefined;
    const imported = this.importedFactories(sf, names);
    if (imported.size === 0) return undefined;
    const spans: [number, number][] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n)) return; // a class in a function: walked with it, kept whole
      if (ts.isDecorator(n) && ts.isCallExpression(n.expression) && ts.isIdentifier(n.expression.expression) && imported.has(n.expression.expression.text)) {
        for (const arg of n.expression.arguments) {
          const start = arg.getStart(sf) + 1;
          const end = arg.getEnd() - 1;
          if ((ts.isObjectLiteralExpression(arg) || ts.isArrayLiteralExpression(arg)) && end > start && isData(arg)) spans.push([start, end]);
        }
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    return spans.length > 0 ? blankSpans(text, spans) : undefined;
  }

  /** Cheap test before parsing: does an import of one of the names come from a module with a
   *  metadata factory? (importedFactories decides on the syntax tree.) */
  private mayImportFactory(fileName: string, text: string): boolean {
    for (const info of ts.preProcessFile(text, true, false).importedFiles) {
      const target = this.sources.resolve(info.fileName, fileName);
      if (target && this.factoriesOf(target).size > 0) return true;
    }
    return false;
  }

  /** Local names of the decorators imported from a metadata factory, and never declared again
   *  in the file (a parameter or variable of the same name would hide the import). */
  private importedFactories(sf: ts.SourceFile, names: ReadonlySet<string>): Set<string> {
    const out = new Set<string>();
    for (const st of sf.statements) {
      if (!ts.isImportDeclaration(st) || !st.importClause || st.importClause.isTypeOnly || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      const target = this.sources.resolve(st.moduleSpecifier.text, sf.fileName);
      const exported = target ? this.factoriesOf(target) : undefined;
      if (!exported || exported.size === 0) continue;
      const clause = st.importClause;
      if (clause.name && names.has(clause.name.text) && exported.has("default")) out.add(clause.name.text);
      if (clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        for (const el of clause.namedBindings.elements) {
          if (!el.isTypeOnly && names.has(el.name.text) && exported.has((el.propertyName ?? el.name).text)) out.add(el.name.text);
        }
      }
    }
    if (out.size === 0) return out;
    let declarations = 0;
    const count = (n: ts.Node): void => {
      const name = (n as ts.NamedDeclaration).name;
      if (name && ts.isIdentifier(name) && out.has(name.text) && isBinding(n)) declarations++;
      ts.forEachChild(n, count);
    };
    count(sf);
    // each name is bound once, by its import
    return declarations === out.size ? out : new Set();
  }

  /** The exports of a module that are metadata factories (metadataFactory). */
  private factoriesOf(file: string): ReadonlySet<string> {
    const key = path.resolve(file);
    let found = this.factories.get(key);
    if (found) return found;
    found = factoryExports(file, this.sources.read(key), this.languageVersion);
    this.factories.set(key, found);
    return found;
  }
}

function isBinding(n: ts.Node): boolean {
  return ts.isImportClause(n) || ts.isImportSpecifier(n) || ts.isNamespaceImport(n) || ts.isImportEqualsDeclaration(n) ||
    ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isBindingElement(n) || ts.isFunctionDeclaration(n) ||
    ts.isClassDeclaration(n) || ts.isEnumDeclaration(n) || ts.isModuleDeclaration(n) || ts.isFunctionExpression(n) || ts.isClassExpression(n);
}

/**
 * Exports of a module (`export default <function>`, `export const X = <function>`) whose
 * function calls nothing but the global `Reflect`'s methods (`Reflect.metadata`,
 * `Reflect.defineMetadata`, ...), if anything, and creates nothing (no `new`, no decorator, no
 * tagged template, no `import()`): a factory that can only record its arguments (as metadata,
 * or on the decorated class: `ctr.prototype.x = arg`).
 */
function factoryExports(file: string, text: string | undefined, languageVersion: ts.ScriptTarget): ReadonlySet<string> {
  const out = new Set<string>();
  if (text === undefined || !FACTORY_EXPORT.test(text)) return out;
  const sf = ts.createSourceFile(file, text, languageVersion, true);
  if ((sf as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics.length > 0) return out;
  let reflectDeclared = false;
  const topLevel = new Map<string, number>();
  const scan = (n: ts.Node): void => {
    const name = (n as ts.NamedDeclaration).name;
    if (name && ts.isIdentifier(name) && name.text === "Reflect" && isBinding(n)) reflectDeclared = true;
    ts.forEachChild(n, scan);
  };
  scan(sf);
  if (reflectDeclared) return out;
  for (const st of sf.statements) {
    for (const declared of declaredNames(st)) topLevel.set(declared, (topLevel.get(declared) ?? 0) + 1);
  }
  for (const st of sf.statements) {
    if (ts.isExportAssignment(st) && !st.isExportEquals && recordsOnly(st.expression)) out.add("default");
    if (ts.isVariableStatement(st) && (st.declarationList.flags & ts.NodeFlags.Const) !== 0 &&
        st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && topLevel.get(d.name.text) === 1 && recordsOnly(d.initializer)) out.add(d.name.text);
      }
    }
  }
  return out;
}

/** Names a top-level statement declares (values, types and namespaces alike). */
function declaredNames(st: ts.Statement): string[] {
  if (ts.isVariableStatement(st)) return st.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  const name = (st as unknown as ts.NamedDeclaration).name;
  return name && ts.isIdentifier(name) ? [name.text] : [];
}

/** A function (through parentheses) whose calls are all `Reflect.<method>(...)`. */
function recordsOnly(e: ts.Expression): boolean {
  e = skipParentheses(e);
  if (!ts.isArrowFunction(e) && !ts.isFunctionExpression(e)) return false;
  let ok = true;
  const visit = (n: ts.Node): void => {
    if (!ok) return;
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression) || callee.expression.text !== "Reflect") ok = false;
    } else if (ts.isNewExpression(n) || ts.isDecorator(n) || ts.isTaggedTemplateExpression(n)) {
      ok = false;
    }
    ts.forEachChild(n, visit);
  };
  visit(e);
  return ok;
}

/** Pure data: literals, names and property paths, in object literals of plain keys and array
 *  literals; no call, function, `new`, spread, computed key, template substitution, nor a key
 *  an index looks for in any object literal. */
function isData(e: ts.Node): boolean {
  switch (e.kind) {
    case ts.SyntaxKind.StringLiteral:
    case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
    case ts.SyntaxKind.NumericLiteral:
    case ts.SyntaxKind.BigIntLiteral:
    case ts.SyntaxKind.TrueKeyword:
    case ts.SyntaxKind.FalseKeyword:
    case ts.SyntaxKind.NullKeyword:
    case ts.SyntaxKind.Identifier:
    case ts.SyntaxKind.OmittedExpression:
      return true;
  }
  if (ts.isPropertyAccessExpression(e)) return ts.isIdentifier(e.name) && isData(e.expression);
  if (ts.isParenthesizedExpression(e)) return isData(e.expression);
  if (ts.isPrefixUnaryExpression(e)) return isData(e.operand);
  if (ts.isArrayLiteralExpression(e)) return e.elements.every(isData);
  if (ts.isObjectLiteralExpression(e)) {
    return e.properties.every((p) => ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) || ts.isNumericLiteral(p.name)) &&
      !SCANNED_KEYS.has(p.name.text) && isData(p.initializer));
  }
  return false;
}
