// The TypeORM statement catalog: which method on which kind of handle reaches the database,
// with what statement kind and which argument carries the row selection. Adding an API means
// adding a row here (and a fixture in test/).
import { StatementKind } from "../ir";

/** How a method's arguments are read.
 *  options   find(options?) / 0.2 findOne(id, options?)
 *  where     findBy(where)
 *  id        findOneById(id)                 -> pk = id
 *  ids       findByIds(ids)                  -> pk IN ids
 *  criteria  delete(criteria)                -> id | ids | where object
 *  update    update(criteria, partial)
 *  updateAll updateAll(partial)               -> every row
 *  step      increment(criteria, column, by) -> column = column + by (in the database)
 *  insert    insert(values)
 *  upsert    upsert(values, conflictPaths)
 *  entity    save/remove(entity | entities)  -> keyed by where the object came from
 *  column    sum(column, where?)
 *  none      clear()                          -> every row
 *  sql       query(sql, params)
 *  tree      findDescendants(entity)
 *  preload   preload(entityLike)              -> pk of the object
 *  mongo     updateOne(filter, update)        -> mongo filter object
 */
export type ArgShape =
  | "options" | "where" | "id" | "ids" | "criteria" | "update" | "updateAll" | "step" | "insert" | "upsert"
  | "entity" | "column" | "none" | "sql" | "tree" | "preload" | "mongo" | "mongo-insert";

export interface StatementApi {
  /** `save` is insert or write depending on the object; `remove` is delete of the object. */
  kind: StatementKind | "save";
  shape: ArgShape;
}

/** Methods shared by Repository<T>, EntityManager (entity target first) and ActiveRecord statics. */
export const REPOSITORY_METHODS: Readonly<Record<string, StatementApi>> = {
  find: { kind: "read", shape: "options" },
  findOne: { kind: "read", shape: "options" },
  findOneOrFail: { kind: "read", shape: "options" },
  findAndCount: { kind: "read", shape: "options" },
  count: { kind: "read", shape: "options" },
  exist: { kind: "read", shape: "options" },
  exists: { kind: "read", shape: "options" },
  findBy: { kind: "read", shape: "where" },
  findOneBy: { kind: "read", shape: "where" },
  findOneByOrFail: { kind: "read", shape: "where" },
  findAndCountBy: { kind: "read", shape: "where" },
  countBy: { kind: "read", shape: "where" },
  existsBy: { kind: "read", shape: "where" },
  findOneById: { kind: "read", shape: "id" },
  findByIds: { kind: "read", shape: "ids" },
  sum: { kind: "read", shape: "column" },
  average: { kind: "read", shape: "column" },
  minimum: { kind: "read", shape: "column" },
  maximum: { kind: "read", shape: "column" },
  preload: { kind: "read", shape: "preload" },
  save: { kind: "save", shape: "entity" },
  insert: { kind: "insert", shape: "insert" },
  update: { kind: "write", shape: "update" },
  updateAll: { kind: "write", shape: "updateAll" },
  upsert: { kind: "write", shape: "upsert" },
  increment: { kind: "write", shape: "step" },
  decrement: { kind: "write", shape: "step" },
  restore: { kind: "write", shape: "criteria" },
  recover: { kind: "write", shape: "entity" },
  delete: { kind: "delete", shape: "criteria" },
  deleteAll: { kind: "delete", shape: "none" },
  softDelete: { kind: "delete", shape: "criteria" },
  remove: { kind: "delete", shape: "entity" },
  softRemove: { kind: "delete", shape: "entity" },
  clear: { kind: "delete", shape: "none" },
  query: { kind: "raw", shape: "sql" },
  // TreeRepository
  findTrees: { kind: "read", shape: "none" },
  findRoots: { kind: "read", shape: "none" },
  findDescendants: { kind: "read", shape: "tree" },
  findDescendantsTree: { kind: "read", shape: "tree" },
  countDescendants: { kind: "read", shape: "tree" },
  findAncestors: { kind: "read", shape: "tree" },
  findAncestorsTree: { kind: "read", shape: "tree" },
  countAncestors: { kind: "read", shape: "tree" },
  // MongoRepository
  findOneAndUpdate: { kind: "write", shape: "mongo" },
  updateOne: { kind: "write", shape: "mongo" },
  updateMany: { kind: "write", shape: "mongo" },
  deleteOne: { kind: "delete", shape: "mongo" },
  deleteMany: { kind: "delete", shape: "mongo" },
  insertOne: { kind: "insert", shape: "mongo-insert" },
  insertMany: { kind: "insert", shape: "mongo-insert" },
};

/** EntityManager methods whose entity target may be omitted (`manager.save(user)`). */
export const OPTIONAL_TARGET = new Set(["save", "remove", "softRemove", "recover"]);

/** ActiveRecord instance methods (`user.save()`). */
export const ACTIVE_RECORD_INSTANCE: Readonly<Record<string, StatementApi>> = {
  save: { kind: "save", shape: "entity" },
  remove: { kind: "delete", shape: "entity" },
  softRemove: { kind: "delete", shape: "entity" },
  recover: { kind: "write", shape: "entity" },
  reload: { kind: "read", shape: "entity" },
};

/** Handle-producing methods: they return another handle, never touch the database. */
export const REPOSITORY_FACTORIES = new Set(["getRepository", "getTreeRepository", "getMongoRepository", "getCustomRepository", "withRepository"]);

/** QueryBuilder methods that run the query, and what they run. */
export const QUERY_BUILDER_TERMINALS: Readonly<Record<string, "read" | "execute">> = {
  getOne: "read", getOneOrFail: "read", getMany: "read", getRawOne: "read", getRawMany: "read",
  getRawAndEntities: "read", getCount: "read", getExists: "read", getManyAndCount: "read", stream: "read",
  execute: "execute",
};

/** RelationQueryBuilder terminals: loading reads the related rows; add/remove change links. */
export const RELATION_TERMINALS: Readonly<Record<string, StatementKind>> = {
  loadOne: "read", loadMany: "read", set: "write", add: "insert", remove: "delete", addAndRemove: "write",
};

/** find options `lock.mode` values that take row locks (optimistic ones do not). */
export const PESSIMISTIC_LOCKS = new Set([
  "pessimistic_read", "pessimistic_write", "pessimistic_partial_write", "pessimistic_write_or_fail",
  "for_no_key_update", "for_key_share", "dirty_read",
]);

/** Type names (declared in typeorm) that denote handles. */
export const HANDLE_TYPES: Readonly<Record<string, "manager" | "datasource" | "repo" | "runner" | "qb">> = {
  EntityManager: "manager", MongoEntityManager: "manager", SqljsEntityManager: "manager",
  DataSource: "datasource", Connection: "datasource",
  Repository: "repo", TreeRepository: "repo", MongoRepository: "repo", AbstractRepository: "repo", BaseRepository: "repo",
  QueryRunner: "runner",
  SelectQueryBuilder: "qb", InsertQueryBuilder: "qb", UpdateQueryBuilder: "qb", DeleteQueryBuilder: "qb",
  SoftDeleteQueryBuilder: "qb", RelationQueryBuilder: "qb", QueryBuilder: "qb",
};

/** The catalog row of a method name; own rows only (`toString`, `constructor` are not APIs). */
export function apiOf(table: Readonly<Record<string, StatementApi>>, name: string): StatementApi | undefined {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}
