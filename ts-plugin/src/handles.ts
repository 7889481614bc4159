// Type-based recognition of TypeORM handles: which expressions are an EntityManager, a
// DataSource, a Repository<T> (including custom repositories and `.extend()` results), a
// QueryRunner or a QueryBuilder, read from the checker's types (real typeorm or txscan's stub).
import * as ts from "typescript";
import { EntityIndex } from "./entities";
import { HANDLE_TYPES } from "./catalog/statements";
import { packageOfFile } from "./stubs";

export interface TypeHandle {
  kind: "manager" | "datasource" | "repo" | "runner" | "qb";
  entity: string | null;
  customClass?: ts.ClassLikeDeclaration;
}

function isTypeormDecl(decl: ts.Declaration | undefined): boolean {
  if (!decl) return false;
  const pkg = packageOfFile(decl.getSourceFile().fileName);
  return pkg === "typeorm" || pkg === "typeorm-transactional";
}

export class HandleTypes {
  private cache = new Map<ts.Type, TypeHandle | null>();
  constructor(private checker: ts.TypeChecker, private entities: EntityIndex) {}

  of(type: ts.Type): TypeHandle | null {
    if (this.cache.has(type)) return this.cache.get(type)!;
    this.cache.set(type, null);
    const r = this.compute(type, 0);
    this.cache.set(type, r);
    return r;
  }

  private compute(type: ts.Type, depth: number): TypeHandle | null {
    if (depth > 6) return null;
    if (type.isUnion() || type.isIntersection()) {
      for (const t of type.types) {
        const h = this.compute(t, depth + 1);
        if (h) return h;
      }
      return null;
    }
    const sym = type.getSymbol() ?? type.aliasSymbol;
    if (!sym) return null;
    const decl = sym.declarations?.[0];
    if (isTypeormDecl(decl) && HANDLE_TYPES[sym.name]) {
      const kind = HANDLE_TYPES[sym.name];
      let entity: string | null = null;
      if (kind === "repo" || kind === "qb") {
        const args = this.checker.getTypeArguments(type as ts.TypeReference);
        if (args.length) entity = this.entities.byType(args[0])?.record.name ?? null;
      }
      return { kind, entity };
    }
    // An application class: a custom repository extends Repository<T> (directly or deeper).
    if (decl && (ts.isClassDeclaration(decl) || ts.isClassExpression(decl)) && !decl.getSourceFile().isDeclarationFile && type.isClassOrInterface()) {
      for (const base of this.checker.getBaseTypes(type as ts.InterfaceType)) {
        const h = this.compute(base, depth + 1);
        if (h && h.kind === "repo") {
          return { kind: "repo", entity: h.entity ?? this.entityRepositoryTarget(decl), customClass: h.customClass ?? decl };
        }
        if (h) return h;
      }
      const target = this.entityRepositoryTarget(decl);
      if (target) return { kind: "repo", entity: target, customClass: decl };
    }
    return null;
  }

  /** Legacy `@EntityRepository(User) class UserRepository extends Repository<User>` target. */
  private entityRepositoryTarget(decl: ts.ClassLikeDeclaration): string | null {
    for (const d of ts.canHaveDecorators(decl) ? ts.getDecorators(decl) ?? [] : []) {
      const e = d.expression;
      if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "EntityRepository" && e.arguments[0]) {
        const info = this.entities.bySymbol(this.checker.getSymbolAtLocation(e.arguments[0]));
        if (info) return info.record.name;
      }
    }
    return null;
  }
}
