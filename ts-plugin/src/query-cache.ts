// TypeORM's query result cache. A find with a `cache` option or a query builder with
// `.cache(...)` stores and reads its result in the cache the data source configures. When that
// cache is Redis (`cache: { type: "redis" | "ioredis" | "ioredis/cluster" }` in the data source
// options, written as a literal in the application), each such statement also talks to Redis:
// a `cache` effect. The default cache is a table of the same database (statements, not an
// effect), and a cache type txscan cannot read (an environment variable) is not assumed.
import * as ts from "typescript";

const EXTERNAL_CACHE_TYPES = new Set(["redis", "ioredis", "ioredis/cluster"]);
/** Members that make an object literal a data source's options (`new DataSource({...})`,
 *  `TypeOrmModule.forRoot({...})`, an ormconfig object). */
const DATA_SOURCE_KEYS = new Set(["type", "entities", "database", "host", "url", "synchronize", "migrations"]);

export const QUERY_CACHE_CALLEE = "typeorm.queryResultCache";

/** Whether any data source options of the application configure an external query cache. */
export function configuresExternalQueryCache(files: ReadonlyArray<ts.SourceFile>): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isObjectLiteralExpression(n) && isExternalCacheOption(n)) {
      found = true;
      return;
    }
    ts.forEachChild(n, visit);
  };
  for (const f of files) {
    if (!f.text.includes("cache")) continue;
    visit(f);
    if (found) break;
  }
  return found;
}

function isExternalCacheOption(options: ts.ObjectLiteralExpression): boolean {
  const members = new Map<string, ts.Expression>();
  for (const p of options.properties) if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) members.set(p.name.text, p.initializer);
  const cache = members.get("cache");
  if (!cache || !ts.isObjectLiteralExpression(cache)) return false;
  if (![...members.keys()].some((k) => k !== "cache" && DATA_SOURCE_KEYS.has(k))) return false;
  for (const p of cache.properties) {
    if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name) || p.name.text !== "type") continue;
    const v = p.initializer;
    return (ts.isStringLiteral(v) || ts.isNoSubstitutionTemplateLiteral(v)) && EXTERNAL_CACHE_TYPES.has(v.text);
  }
  return false;
}
