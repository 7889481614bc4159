// Entities: @Entity/@ViewEntity/@ChildEntity classes and EntitySchema objects, with their
// keys, unique attribute sets and relations, plus the app's own abstract base classes whose
// columns they inherit. Also the attribute normaliser every predicate goes through
// (primary key -> "pk", `userId`/`user_id` join column -> relation `user`).
import * as ts from "typescript";
import { EntityRecord, Relation } from "./ir";
import { lineOf, modulePath, stripParens, unalias } from "./names";
import { packageOfFile } from "./stubs";
import { relPath } from "./program";
import { SyntaxOutline } from "./syntax-outline";

export interface RelationInfo {
  attribute: string;
  decorator: string; // ManyToOne, OneToOne, ManyToMany, OneToMany, TreeParent, TreeChildren
  targetName: string | null;
  inverse: string | null;
  owning: boolean;
  lazy: boolean;
}

export interface EntityInfo {
  record: EntityRecord;
  node: ts.Node;
  /** attribute name as written (property, join column, db column, RelationId) -> IR attribute */
  aliases: Map<string, string>;
  relations: Map<string, RelationInfo>;
  activeRecord: boolean;
}

/** TypeORM's DefaultNamingStrategy table name: StringUtils.snakeCase(className). */
export function snakeCase(s: string): string {
  return s.replace(/(?:([a-z])([A-Z]))|(?:((?!^)[A-Z])([a-z]))/g, "$1_$3$2$4").toLowerCase();
}

const COLUMN_DECORATORS = new Set([
  "Column", "CreateDateColumn", "UpdateDateColumn", "DeleteDateColumn", "VersionColumn", "ViewColumn",
  "VirtualColumn", "TreeLevelColumn", "ObjectIdColumn", "PrimaryColumn", "PrimaryGeneratedColumn",
]);
const PK_DECORATORS = new Set(["PrimaryColumn", "PrimaryGeneratedColumn", "ObjectIdColumn"]);
const RELATION_DECORATORS = new Set(["ManyToOne", "OneToOne", "ManyToMany", "OneToMany", "TreeParent", "TreeChildren"]);

/** Name of a TypeORM export a decorator/callee refers to (`Entity`, `Column`), resolved through
 *  imports and aliases; undefined when it is not TypeORM's. */
export function typeormExportName(checker: ts.TypeChecker, expr: ts.Expression): string | undefined {
  expr = stripParens(expr);
  const id = ts.isIdentifier(expr) ? expr : ts.isPropertyAccessExpression(expr) ? expr.name : undefined;
  if (!id) return undefined;
  const sym = checker.getSymbolAtLocation(id);
  if (!sym) return undefined;
  const decl = sym.declarations?.[0];
  if (decl && ts.isImportSpecifier(decl)) {
    const mod = (decl.parent.parent.parent as ts.ImportDeclaration).moduleSpecifier;
    if (ts.isStringLiteral(mod) && (mod.text === "typeorm" || mod.text.startsWith("typeorm/"))) return (decl.propertyName ?? decl.name).text;
  }
  if (ts.isPropertyAccessExpression(expr)) {
    const base = checker.getSymbolAtLocation(stripParens(expr.expression));
    const bd = base?.declarations?.[0];
    if (bd && ts.isNamespaceImport(bd) && ts.isStringLiteral(bd.parent.parent.moduleSpecifier) && bd.parent.parent.moduleSpecifier.text === "typeorm") {
      return expr.name.text;
    }
  }
  const target = unalias(checker, sym);
  if (!target) return undefined;
  const d = target.declarations?.[0];
  if (d && packageOfFile(d.getSourceFile().fileName) === "typeorm") return target.name;
  return undefined;
}

const ENTITY_DECORATORS = [
  "Entity", "ViewEntity", "ChildEntity", "PrimaryGeneratedColumn", "PrimaryColumn", "ObjectIdColumn", "ManyToOne", "OneToOne",
  "ManyToMany", "OneToMany", "TreeParent", "TreeChildren", "JoinColumn", "JoinTable", "RelationId", "Unique", "Index",
  "CreateDateColumn", "UpdateDateColumn", "DeleteDateColumn", "VersionColumn", "ViewColumn", "VirtualColumn", "Column",
];
/** Decorator wrappers already followed, per checker: what a wrapper calls is the checker's answer,
 *  and a re-analysis of edited files (scan.ts scanEdited) shares the wrapper's unchanged tree with a new one. */
const wrapperCaches = new WeakMap<ts.TypeChecker, WeakMap<ts.Node, string | null>>();

/** TypeORM decorator a decorator expression applies, following the app's own decorator
 *  wrappers (`@MultiORMEntity("x")` whose body calls TypeORM's `Entity`). */
export function decoratorName(checker: ts.TypeChecker, expr: ts.Expression): string | undefined {
  const direct = typeormExportName(checker, expr);
  if (direct) return direct;
  expr = stripParens(expr);
  const id = ts.isIdentifier(expr) ? expr : ts.isPropertyAccessExpression(expr) ? expr.name : undefined;
  const found0 = id ? checker.getSymbolAtLocation(id) : undefined;
  const sym = found0 && unalias(checker, found0);
  if (found0 && !sym) return undefined;
  const decl = sym?.declarations?.find((d) => ts.isFunctionLike(d) && (d as ts.FunctionLikeDeclaration).body) ??
    sym?.declarations?.find((d) => ts.isVariableDeclaration(d) && !!d.initializer);
  if (!decl || decl.getSourceFile().isDeclarationFile) return undefined;
  let wrapperCache = wrapperCaches.get(checker);
  if (!wrapperCache) wrapperCaches.set(checker, (wrapperCache = new WeakMap()));
  if (wrapperCache.has(decl)) return wrapperCache.get(decl) ?? undefined;
  wrapperCache.set(decl, null);
  const found = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n)) {
      const name = typeormExportName(checker, n.expression);
      if (name && ENTITY_DECORATORS.includes(name)) found.add(name);
    }
    ts.forEachChild(n, visit);
  };
  visit(decl);
  const name = ENTITY_DECORATORS.find((d) => found.has(d)) ?? null;
  wrapperCache.set(decl, name);
  return name ?? undefined;
}

/**
 * The names under which TypeORM's EntitySchema can be written at a `new`: its own, and every
 * name an import or export gives something under another name anywhere in the program (a
 * renaming specifier, a default import, `import x = ...`), since an alias chain from TypeORM to
 * a `new` renames it only through those. typeormExportName decides among them.
 */
function schemaNames(program: ts.Program): Set<string> {
  const out = new Set(["EntitySchema"]);
  const visit = (statements: ts.NodeArray<ts.Statement>): void => {
    for (const st of statements) {
      if (ts.isImportDeclaration(st) && st.importClause) {
        if (st.importClause.name) out.add(st.importClause.name.text);
        const bindings = st.importClause.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) if (el.propertyName) out.add(el.name.text);
      } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) if (el.propertyName) out.add(el.name.text);
      } else if (ts.isImportEqualsDeclaration(st)) {
        out.add(st.name.text);
      } else if (ts.isModuleDeclaration(st)) {
        let body = st.body;
        while (body && ts.isModuleDeclaration(body)) body = body.body;
        if (body && ts.isModuleBlock(body)) visit(body.statements);
      }
    }
  };
  for (const sf of program.getSourceFiles()) visit(sf.statements);
  return out;
}

function decoratorsOf(node: ts.Node): ts.Decorator[] {
  return ts.canHaveDecorators(node) ? [...(ts.getDecorators(node) ?? [])] : [];
}

function decoratorCall(d: ts.Decorator): { callee: ts.Expression; args: readonly ts.Expression[] } {
  const e = d.expression;
  if (ts.isCallExpression(e)) return { callee: e.expression, args: e.arguments };
  return { callee: e, args: [] };
}

function propName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return undefined;
}

function objectArg(args: readonly ts.Expression[]): ts.ObjectLiteralExpression | undefined {
  for (const a of args) {
    const s = stripParens(a);
    if (ts.isObjectLiteralExpression(s)) return s;
  }
  return undefined;
}

function prop(obj: ts.ObjectLiteralExpression | undefined, key: string): ts.Expression | undefined {
  if (!obj) return undefined;
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && propName(p.name) === key) return stripParens(p.initializer);
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === key) return p.name;
  }
  return undefined;
}

function isTrue(e: ts.Expression | undefined): boolean {
  return !!e && e.kind === ts.SyntaxKind.TrueKeyword;
}

function stringValue(e: ts.Expression | undefined): string | undefined {
  if (!e) return undefined;
  e = stripParens(e);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  return undefined;
}

function stringArray(e: ts.Expression | undefined): string[] | undefined {
  if (!e) return undefined;
  e = stripParens(e);
  if (ts.isArrayLiteralExpression(e)) {
    const out: string[] = [];
    for (const el of e.elements) {
      const s = stringValue(el);
      if (s === undefined) return undefined;
      out.push(s);
    }
    return out;
  }
  // (e: User) => [e.a, e.b] form of @Unique/@Index
  if (ts.isArrowFunction(e)) {
    const body = stripParens(e.body as ts.Expression);
    if (ts.isArrayLiteralExpression(body)) return body.elements.map((el) => (ts.isPropertyAccessExpression(el) ? el.name.text : el.getText()));
    if (ts.isObjectLiteralExpression(body)) return body.properties.map((p) => (p.name ? propName(p.name) ?? p.getText() : p.getText()));
  }
  return undefined;
}

/** `() => User`, `type => User`, `"User"`: the target entity's class name. */
function relationTarget(e: ts.Expression | undefined): string | null {
  if (!e) return null;
  e = stripParens(e);
  const s = stringValue(e);
  if (s !== undefined) return s;
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) {
    const body = ts.isBlock(e.body) ? undefined : stripParens(e.body);
    if (body && (ts.isIdentifier(body) || ts.isPropertyAccessExpression(body))) return body.getText().split(".").pop()!;
  }
  if (ts.isIdentifier(e)) return e.text;
  return null;
}

/** `(user) => user.orders` or `"orders"`: the inverse side's property name. */
function inverseName(e: ts.Expression | undefined): string | null {
  if (!e) return null;
  e = stripParens(e);
  const s = stringValue(e);
  if (s !== undefined) return s;
  if (ts.isArrowFunction(e)) {
    const body = ts.isBlock(e.body) ? undefined : stripParens(e.body);
    if (body && ts.isPropertyAccessExpression(body)) return body.name.text;
  }
  return null;
}

interface ClassFacts {
  node: ts.ClassDeclaration;
  kind: "Entity" | "ViewEntity" | "ChildEntity" | null;
  entityArgs: readonly ts.Expression[];
  base: ts.ClassDeclaration | undefined;
  baseIsTypeormBaseEntity: boolean;
  baseUnknown: boolean;
  pk: string[];
  columns: string[];
  unique: string[][];
  dbNames: Map<string, string>;
  relations: RelationInfo[];
  joinColumns: Map<string, string>; // column name -> relation
  relationIds: Map<string, string>; // property -> relation
}

export class EntityIndex {
  readonly infos: EntityInfo[] = [];
  private byNodeMap = new Map<ts.Node, EntityInfo>();
  private byNameMap = new Map<string, EntityInfo>();
  private byTableMap = new Map<string, EntityInfo>();

  constructor(private checker: ts.TypeChecker, private rootDir: string) {}

  /** `program`: the whole program, to ask the checker only about `new` expressions that can
   *  name TypeORM's EntitySchema (schemaNames); without it every `new` is asked about.
   *  `outline`: the files' classes and `new` expressions (syntax-outline.ts), when the caller has them. */
  build(files: ts.SourceFile[], program?: ts.Program, outline: SyntaxOutline = SyntaxOutline.of(files)): void {
    const facts = new Map<ts.ClassDeclaration, ClassFacts>();
    const classes = outline.classes;
    const schemas: ts.NewExpression[] = [];
    const names = program && schemaNames(program);
    const mayBeSchema = (e: ts.Expression): boolean => {
      if (!names) return true;
      e = stripParens(e);
      const id = ts.isIdentifier(e) ? e : ts.isPropertyAccessExpression(e) ? e.name : undefined;
      return !!id && names.has(id.text);
    };
    for (const n of outline.news) if (mayBeSchema(n.expression) && typeormExportName(this.checker, n.expression) === "EntitySchema") schemas.push(n);
    for (const c of classes) facts.set(c, this.classFacts(c));

    const abstractNeeded = new Set<ts.ClassDeclaration>();
    const entityClasses = classes.filter((c) => facts.get(c)!.kind);
    for (const c of entityClasses) {
      let b = facts.get(c)!.base;
      const seen = new Set<ts.ClassDeclaration>();
      while (b && facts.has(b) && !seen.has(b)) {
        seen.add(b);
        if (!facts.get(b)!.kind) abstractNeeded.add(b);
        b = facts.get(b)!.base;
      }
    }
    for (const c of classes) {
      const f = facts.get(c)!;
      if (f.kind || (abstractNeeded.has(c) && (f.columns.length > 0 || f.relations.length > 0))) this.addClass(f, facts);
    }
    for (const s of schemas) this.addSchema(s);
  }

  private classFacts(c: ts.ClassDeclaration): ClassFacts {
    const f: ClassFacts = {
      node: c, kind: null, entityArgs: [], base: undefined, baseIsTypeormBaseEntity: false, baseUnknown: false,
      pk: [], columns: [], unique: [], dbNames: new Map(), relations: [], joinColumns: new Map(), relationIds: new Map(),
    };
    for (const d of decoratorsOf(c)) {
      const { callee, args } = decoratorCall(d);
      const name = decoratorName(this.checker, callee);
      if (name === "Entity" || name === "ViewEntity" || name === "ChildEntity") {
        f.kind = name;
        f.entityArgs = args;
      } else if (name === "Unique") {
        const cols = stringArray(args[args.length - 1]) ?? (args.length === 1 ? undefined : stringArray(args[1]));
        if (cols) f.unique.push(cols);
      } else if (name === "Index") {
        const opts = objectArg(args);
        const cols = args.map((a) => stringArray(a)).find((x) => x);
        if (cols && isTrue(prop(opts, "unique"))) f.unique.push(cols);
      }
    }
    const ext = c.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    if (ext) {
      if (typeormExportName(this.checker, ext.expression) === "BaseEntity") f.baseIsTypeormBaseEntity = true;
      else {
        const found = this.checker.getSymbolAtLocation(ext.expression);
        const sym = found && unalias(this.checker, found);
        const decl = sym?.declarations?.find((d) => ts.isClassDeclaration(d)) as ts.ClassDeclaration | undefined;
        if (decl && !decl.getSourceFile().isDeclarationFile) f.base = decl;
        else f.baseUnknown = true;
      }
    }
    for (const m of c.members) {
      if (!ts.isPropertyDeclaration(m) || !m.name) continue;
      const name = propName(m.name);
      if (!name) continue;
      let isColumn = false;
      let rel: RelationInfo | undefined;
      let joinColumn: ts.Decorator | undefined;
      let joinTable = false;
      for (const d of decoratorsOf(m)) {
        const { callee, args } = decoratorCall(d);
        const dn = decoratorName(this.checker, callee);
        if (!dn) continue;
        const opts = objectArg(args);
        if (COLUMN_DECORATORS.has(dn)) {
          isColumn = true;
          if (PK_DECORATORS.has(dn) || isTrue(prop(opts, "primary"))) f.pk.push(name);
          if (isTrue(prop(opts, "unique"))) f.unique.push([name]);
          const db = stringValue(prop(opts, "name")) ?? (dn === "Column" && args.length > 0 ? undefined : undefined);
          if (db) f.dbNames.set(db, name);
        } else if (RELATION_DECORATORS.has(dn)) {
          const lazy = !!m.type && ts.isTypeReferenceNode(m.type) && m.type.typeName.getText() === "Promise";
          rel = {
            attribute: name, decorator: dn, targetName: dn.startsWith("Tree") ? c.name?.text ?? null : relationTarget(args[0]),
            inverse: dn.startsWith("Tree") ? (dn === "TreeParent" ? "children" : "parent") : inverseName(args[1]),
            owning: dn === "ManyToOne" || dn === "TreeParent", lazy,
          };
          if (isTrue(prop(opts, "primary"))) f.pk.push(name);
        } else if (dn === "JoinColumn") joinColumn = d;
        else if (dn === "JoinTable") joinTable = true;
        else if (dn === "RelationId") {
          const target = inverseName(args[0]);
          if (target) f.relationIds.set(name, target);
        } else if (dn === "Index") {
          if (isTrue(prop(opts, "unique"))) f.unique.push([name]);
        } else if (dn === "Unique") {
          f.unique.push([name]);
        }
      }
      if (rel) {
        if (rel.decorator === "OneToOne" && joinColumn) rel.owning = true;
        if (rel.decorator === "ManyToMany" && joinTable) rel.owning = true;
        if (rel.decorator === "OneToOne" && rel.owning) f.unique.push([name]);
        f.relations.push(rel);
        if (rel.owning && rel.decorator !== "ManyToMany") {
          f.joinColumns.set(`${name}Id`, name);
          f.joinColumns.set(`${snakeCase(name)}_id`, name);
          if (joinColumn) {
            const { args } = decoratorCall(joinColumn);
            const first = args[0] ? stripParens(args[0]) : undefined;
            const list = first && ts.isArrayLiteralExpression(first) ? first.elements.map((e) => stripParens(e)) : first ? [first] : [];
            for (const o of list) {
              if (ts.isObjectLiteralExpression(o)) {
                const jn = stringValue(prop(o, "name"));
                if (jn) f.joinColumns.set(jn, name);
              }
            }
          }
        }
      } else if (isColumn) f.columns.push(name);
    }
    return f;
  }

  private chain(f: ClassFacts, facts: Map<ts.ClassDeclaration, ClassFacts>): ClassFacts[] {
    const out: ClassFacts[] = [];
    const seen = new Set<ts.ClassDeclaration>();
    let cur: ClassFacts | undefined = f;
    while (cur && !seen.has(cur.node)) {
      seen.add(cur.node);
      out.unshift(cur);
      cur = cur.base ? facts.get(cur.base) : undefined;
    }
    return out; // base first
  }

  private addClass(f: ClassFacts, facts: Map<ts.ClassDeclaration, ClassFacts>): void {
    const chain = this.chain(f, facts);
    const pk: string[] = [];
    const fields: string[] = [];
    const unique: string[][] = [];
    const relations: Relation[] = [];
    const aliases = new Map<string, string>();
    const relInfos = new Map<string, RelationInfo>();
    const dbNames = new Map<string, string>();
    const joinColumns = new Map<string, string>();
    let activeRecord = false;
    let baseUnknown = false;
    for (const c of chain) {
      activeRecord ||= c.baseIsTypeormBaseEntity;
      baseUnknown ||= c.baseUnknown;
      for (const p of c.pk) if (!pk.includes(p)) pk.push(p);
      for (const col of c.columns) if (!fields.includes(col)) fields.push(col);
      for (const u of c.unique) unique.push(u);
      for (const [k, v] of c.dbNames) dbNames.set(k, v);
      for (const [k, v] of c.joinColumns) joinColumns.set(k, v);
      for (const r of c.relations) {
        relInfos.set(r.attribute, r);
        if (!r.owning) continue;
        if (!fields.includes(r.attribute)) fields.push(r.attribute);
        const kind = r.decorator === "OneToOne" ? "o2o" : r.decorator === "ManyToMany" ? "m2m" : "fk";
        relations.push({ attribute: r.attribute, kind, target: r.targetName, reverse: r.inverse });
      }
      for (const [k, v] of c.relationIds) aliases.set(k, v);
    }
    // A table entity always has a primary key; when txscan cannot see it (declared in a base
    // class of a package, or with the app's own column decorator) it is `id` by convention.
    if (pk.length === 0 && f.kind !== "ViewEntity" && (baseUnknown || activeRecord || f.kind)) pk.push("id");
    for (const [k, v] of joinColumns) if (!aliases.has(k)) aliases.set(k, v);
    for (const [db, p] of dbNames) if (!aliases.has(db) && db !== p) aliases.set(db, p);
    // A plain `userId` column next to the `user` relation is the same database column.
    for (const col of fields) if (joinColumns.has(col)) aliases.set(col, joinColumns.get(col)!);
    // fields name foreign keys by their relation (`owner`, not `ownerId`)
    for (let i = fields.length - 1; i >= 0; i--) if (joinColumns.has(fields[i]) && fields.includes(joinColumns.get(fields[i])!)) fields.splice(i, 1);
    // A single-column key is `pk`. The columns of a composite key keep their names: an equality
    // on some of them is not a key lookup (statements with all of them get one `pk` term,
    // predicates.ts compositeKeys).
    if (pk.length === 1) {
      for (const p of pk) aliases.set(p, "pk");
      for (const [k, v] of [...aliases]) if (pk.includes(v)) aliases.set(k, "pk");
    } else for (let i = 0; i < pk.length; i++) pk[i] = aliases.get(pk[i]) ?? pk[i];

    const name = f.node.name?.text ?? `<class>@${lineOf(f.node)}`;
    let table: string | null = null;
    if (f.kind === "Entity" || f.kind === "ViewEntity") {
      const a0 = f.entityArgs[0] ? stripParens(f.entityArgs[0]) : undefined;
      table = stringValue(a0) ?? stringValue(prop(objectArg(f.entityArgs), "name")) ?? snakeCase(name);
    } else if (f.kind === "ChildEntity") {
      const parent = chain.slice(0, -1).reverse().find((c) => c.kind === "Entity");
      table = parent ? stringValue(parent.entityArgs[0]) ?? stringValue(prop(objectArg(parent.entityArgs), "name")) ?? snakeCase(parent.node.name?.text ?? "") : snakeCase(name);
    }
    const sf = f.node.getSourceFile();
    const record: EntityRecord = {
      ir: 1, type: "entity", name, qualname: `${modulePath(this.rootDir, sf)}.${name}`, table,
      file: relPath(this.rootDir, sf.fileName), line: lineOf(f.node), pk, unique: dedupeSets(unique), fields, relations,
      abstract: !f.kind,
    };
    this.register({ record, node: f.node, aliases, relations: relInfos, activeRecord }, [f.node]);
  }

  private addSchema(n: ts.NewExpression): void {
    const opts = objectArg(n.arguments ?? []);
    if (!opts) return;
    const name = stringValue(prop(opts, "name"));
    if (!name) return;
    const pk: string[] = [];
    const fields: string[] = [];
    const unique: string[][] = [];
    const relations: Relation[] = [];
    const aliases = new Map<string, string>();
    const relInfos = new Map<string, RelationInfo>();
    const cols = prop(opts, "columns");
    if (cols && ts.isObjectLiteralExpression(cols)) {
      for (const p of cols.properties) {
        if (!ts.isPropertyAssignment(p)) continue;
        const col = propName(p.name);
        const o = stripParens(p.initializer);
        if (!col) continue;
        fields.push(col);
        if (ts.isObjectLiteralExpression(o)) {
          if (isTrue(prop(o, "primary")) || isTrue(prop(o, "objectId"))) pk.push(col);
          if (isTrue(prop(o, "unique"))) unique.push([col]);
          const db = stringValue(prop(o, "name"));
          if (db && db !== col) aliases.set(db, col);
        }
      }
    }
    const rels = prop(opts, "relations");
    if (rels && ts.isObjectLiteralExpression(rels)) {
      for (const p of rels.properties) {
        if (!ts.isPropertyAssignment(p)) continue;
        const attr = propName(p.name);
        const o = stripParens(p.initializer);
        if (!attr || !ts.isObjectLiteralExpression(o)) continue;
        const type = stringValue(prop(o, "type")) ?? "";
        const target = relationTarget(prop(o, "target"));
        const inverse = stringValue(prop(o, "inverseSide"));
        const hasJoin = !!prop(o, "joinColumn");
        const owning = type === "many-to-one" || (type === "one-to-one" && hasJoin) || (type === "many-to-many" && !!prop(o, "joinTable"));
        const decorator = type === "many-to-one" ? "ManyToOne" : type === "one-to-one" ? "OneToOne" : type === "many-to-many" ? "ManyToMany" : "OneToMany";
        relInfos.set(attr, { attribute: attr, decorator, targetName: target, inverse: inverse ?? null, owning, lazy: isTrue(prop(o, "lazy")) });
        if (!owning) continue;
        fields.push(attr);
        relations.push({ attribute: attr, kind: type === "one-to-one" ? "o2o" : type === "many-to-many" ? "m2m" : "fk", target, reverse: inverse ?? null });
        if (type === "one-to-one") unique.push([attr]);
        aliases.set(`${attr}Id`, attr);
        aliases.set(`${snakeCase(attr)}_id`, attr);
        const jc = prop(o, "joinColumn");
        if (jc && ts.isObjectLiteralExpression(jc)) {
          const jn = stringValue(prop(jc, "name"));
          if (jn) aliases.set(jn, attr);
        }
      }
    }
    for (const key of ["uniques", "indices"]) {
      const arr = prop(opts, key);
      if (!arr || !ts.isArrayLiteralExpression(arr)) continue;
      for (const el of arr.elements) {
        const o = stripParens(el);
        if (!ts.isObjectLiteralExpression(o)) continue;
        if (key === "indices" && !isTrue(prop(o, "unique"))) continue;
        const c = stringArray(prop(o, "columns"));
        if (c) unique.push(c);
      }
    }
    if (pk.length === 1) aliases.set(pk[0], "pk");
    const sf = n.getSourceFile();
    const decl = ts.isVariableDeclaration(n.parent) ? n.parent : n;
    const record: EntityRecord = {
      ir: 1, type: "entity", name, qualname: `${modulePath(this.rootDir, sf)}.${name}`,
      table: stringValue(prop(opts, "tableName")) ?? snakeCase(name), file: relPath(this.rootDir, sf.fileName), line: lineOf(n),
      pk, unique: dedupeSets(unique), fields, relations, abstract: false,
    };
    const nodes: ts.Node[] = [n, decl];
    const target = prop(opts, "target");
    if (target && ts.isIdentifier(target)) {
      const cls = this.classOf(target);
      if (cls) nodes.push(cls);
    }
    this.register({ record, node: decl, aliases, relations: relInfos, activeRecord: false }, nodes);
  }

  private register(info: EntityInfo, nodes: ts.Node[]): void {
    if (this.byNameMap.has(info.record.name)) info.record.name = info.record.qualname;
    this.infos.push(info);
    for (const n of nodes) this.byNodeMap.set(n, info);
    this.byNameMap.set(info.record.name, info);
    if (info.record.table && !info.record.abstract && !this.byTableMap.has(info.record.table)) this.byTableMap.set(info.record.table, info);
  }

  private classOf(id: ts.Expression): ts.Node | undefined {
    const found = this.checker.getSymbolAtLocation(id);
    const sym = found && unalias(this.checker, found);
    return sym?.valueDeclaration ?? sym?.declarations?.[0];
  }

  records(): EntityRecord[] {
    return this.infos.map((i) => i.record);
  }
  byNode(n: ts.Node | undefined): EntityInfo | undefined {
    return n ? this.byNodeMap.get(n) : undefined;
  }
  byName(name: string): EntityInfo | undefined {
    return this.byNameMap.get(name) ?? this.byTableMap.get(name);
  }
  byTable(table: string): EntityInfo | undefined {
    const t = table.replace(/["`\[\]]/g, "");
    const short = t.includes(".") ? t.split(".").pop()! : t;
    return this.byTableMap.get(short) ?? this.byTableMap.get(short.toLowerCase()) ?? this.byNameMap.get(short);
  }
  /** The entity a symbol (class, EntitySchema variable) denotes. */
  bySymbol(sym: ts.Symbol | undefined): EntityInfo | undefined {
    if (!sym) return undefined;
    sym = unalias(this.checker, sym);
    if (!sym) return undefined;
    for (const d of sym.declarations ?? []) {
      const info = this.byNodeMap.get(d);
      if (info && !info.record.abstract) return info;
    }
    return undefined;
  }
  /** The entity an instance type denotes (User, User[], User | null, Promise<User>). */
  byType(type: ts.Type, depth = 0): EntityInfo | undefined {
    if (depth > 4) return undefined;
    if (type.isUnion() || type.isIntersection()) {
      for (const t of type.types) {
        const e = this.byType(t, depth + 1);
        if (e) return e;
      }
      return undefined;
    }
    const sym = type.getSymbol();
    const direct = this.bySymbol(sym);
    if (direct) return direct;
    if (sym && (sym.name === "Array" || sym.name === "Promise" || sym.name === "ReadonlyArray")) {
      const args = this.checker.getTypeArguments(type as ts.TypeReference);
      if (args.length) return this.byType(args[0], depth + 1);
    }
    return undefined;
  }

  /** Normalised IR attribute: pk, relation name for join columns, property for db names. */
  static attribute(info: EntityInfo | undefined, name: string): string {
    if (!info) return name === "id" ? "pk" : name;
    let a = info.aliases.get(name) ?? name;
    if (info.aliases.has(a) && info.aliases.get(a) !== a) a = info.aliases.get(a)!;
    return a;
  }
}

function dedupeSets(sets: string[][]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const s of sets) {
    const k = [...s].sort().join("\u0000");
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
  }
  return out;
}
