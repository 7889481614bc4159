// Declaration stub for `typeorm`, used by txscan only when the scanned application's own
// node_modules/typeorm cannot be resolved (corpora are scanned without installing
// dependencies). It is the union of the 0.2, 0.3 and 1.x API surfaces, typed just enough for
// the checker to carry entity type arguments (Repository<User>, manager.find(User, ...))
// through an application. Everything else is deliberately loose (`any`).

export type ObjectLiteral = { [key: string]: any };
export type ObjectType<T> = { new (...args: any[]): T } | Function;
export type EntityTarget<Entity> = ObjectType<Entity> | EntitySchema<Entity> | string | { type: Entity; name: string };
export type DeepPartial<T> = T | { [P in keyof T]?: any };
export type QueryDeepPartialEntity<T> = { [P in keyof T]?: any };
export type FindOptionsWhere<Entity> = { [P in keyof Entity]?: any };
export type FindOptionsSelect<Entity> = { [P in keyof Entity]?: any } | string[];
export type FindOptionsRelations<Entity> = { [P in keyof Entity]?: any } | string[];
export type FindOptionsOrder<Entity> = { [P in keyof Entity]?: any };
export type IsolationLevel = "READ UNCOMMITTED" | "READ COMMITTED" | "REPEATABLE READ" | "SERIALIZABLE";
export type DataSourceOptions = any;
export type ConnectionOptions = any;
export type ColumnType = any;
export type ReplicationMode = "master" | "slave";

export interface FindOneOptions<Entity = any> {
  select?: FindOptionsSelect<Entity>;
  where?: FindOptionsWhere<Entity>[] | FindOptionsWhere<Entity> | any;
  relations?: FindOptionsRelations<Entity>;
  relationLoadStrategy?: "join" | "query";
  join?: any;
  order?: FindOptionsOrder<Entity>;
  cache?: any;
  lock?: { mode: string; tables?: string[]; onLocked?: string } | { mode: "optimistic"; version: number | Date };
  withDeleted?: boolean;
  loadRelationIds?: any;
  loadEagerRelations?: boolean;
  transaction?: boolean;
  comment?: string;
}
export interface FindManyOptions<Entity = any> extends FindOneOptions<Entity> {
  skip?: number;
  take?: number;
}
export type FindConditions<T> = FindOptionsWhere<T>;
export type SaveOptions = { data?: any; listeners?: boolean; transaction?: boolean; chunk?: number; reload?: boolean };
export type RemoveOptions = { data?: any; listeners?: boolean; transaction?: boolean; chunk?: number };
export type UpsertOptions<Entity> = { conflictPaths: string[] | { [P in keyof Entity]?: true }; skipUpdateIfNoValuesChanged?: boolean; upsertType?: string };

export declare class FindOperator<T> {
  constructor(type: string, value: T | FindOperator<T>, useParameter?: boolean, multipleParameters?: boolean);
  readonly type: string;
  readonly value: T;
}
export declare function In<T>(value: readonly T[] | FindOperator<T>): FindOperator<any>;
export declare function Not<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function MoreThan<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function MoreThanOrEqual<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function LessThan<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function LessThanOrEqual<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function Between<T>(from: T | FindOperator<T>, to: T | FindOperator<T>): FindOperator<T>;
export declare function Like<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function ILike<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function IsNull(): FindOperator<any>;
export declare function Any<T>(value: readonly T[] | FindOperator<T>): FindOperator<T>;
export declare function Equal<T>(value: T | FindOperator<T>): FindOperator<T>;
export declare function Raw<T>(value: string | ((columnAlias: string) => string), parameters?: ObjectLiteral): FindOperator<any>;
export declare function ArrayContains<T>(value: readonly T[] | FindOperator<T>): FindOperator<any>;
export declare function ArrayContainedBy<T>(value: readonly T[] | FindOperator<T>): FindOperator<any>;
export declare function ArrayOverlap<T>(value: readonly T[] | FindOperator<T>): FindOperator<any>;
export declare function JsonContains<T>(value: T): FindOperator<any>;
export declare function And<T>(...values: FindOperator<T>[]): FindOperator<T>;
export declare function Or<T>(...values: FindOperator<T>[]): FindOperator<T>;

export interface InsertResult { identifiers: ObjectLiteral[]; generatedMaps: ObjectLiteral[]; raw: any }
export interface UpdateResult { raw: any; affected?: number; generatedMaps: ObjectLiteral[] }
export interface DeleteResult { raw: any; affected?: number | null }

export declare class Repository<Entity extends ObjectLiteral> {
  constructor(target: EntityTarget<Entity>, manager: EntityManager, queryRunner?: QueryRunner);
  readonly target: EntityTarget<Entity>;
  readonly manager: EntityManager;
  readonly queryRunner?: QueryRunner;
  readonly metadata: any;
  createQueryBuilder(alias?: string, queryRunner?: QueryRunner): SelectQueryBuilder<Entity>;
  hasId(entity: Entity): boolean;
  getId(entity: Entity): any;
  create(): Entity;
  create(entityLikeArray: DeepPartial<Entity>[]): Entity[];
  create(entityLike: DeepPartial<Entity>): Entity;
  merge(mergeIntoEntity: Entity, ...entityLikes: DeepPartial<Entity>[]): Entity;
  preload(entityLike: DeepPartial<Entity>): Promise<Entity | undefined>;
  save<T extends DeepPartial<Entity>>(entities: T[], options?: SaveOptions): Promise<(T & Entity)[]>;
  save<T extends DeepPartial<Entity>>(entity: T, options?: SaveOptions): Promise<T & Entity>;
  remove(entities: Entity[], options?: RemoveOptions): Promise<Entity[]>;
  remove(entity: Entity, options?: RemoveOptions): Promise<Entity>;
  softRemove<T extends DeepPartial<Entity>>(entities: T[], options?: SaveOptions): Promise<(T & Entity)[]>;
  softRemove<T extends DeepPartial<Entity>>(entity: T, options?: SaveOptions): Promise<T & Entity>;
  recover<T extends DeepPartial<Entity>>(entity: T | T[], options?: SaveOptions): Promise<T & Entity>;
  insert(entity: QueryDeepPartialEntity<Entity> | QueryDeepPartialEntity<Entity>[]): Promise<InsertResult>;
  update(criteria: any, partialEntity: QueryDeepPartialEntity<Entity>): Promise<UpdateResult>;
  updateAll(partialEntity: QueryDeepPartialEntity<Entity>): Promise<UpdateResult>;
  upsert(entityOrEntities: QueryDeepPartialEntity<Entity> | QueryDeepPartialEntity<Entity>[], conflictPathsOrOptions: string[] | UpsertOptions<Entity>): Promise<InsertResult>;
  delete(criteria: any): Promise<DeleteResult>;
  deleteAll(): Promise<DeleteResult>;
  softDelete(criteria: any): Promise<UpdateResult>;
  restore(criteria: any): Promise<UpdateResult>;
  exist(options?: FindManyOptions<Entity>): Promise<boolean>;
  exists(options?: FindManyOptions<Entity>): Promise<boolean>;
  existsBy(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<boolean>;
  count(options?: FindManyOptions<Entity>): Promise<number>;
  countBy(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<number>;
  sum(columnName: string, where?: any): Promise<number | null>;
  average(columnName: string, where?: any): Promise<number | null>;
  minimum(columnName: string, where?: any): Promise<number | null>;
  maximum(columnName: string, where?: any): Promise<number | null>;
  find(options?: FindManyOptions<Entity> | any): Promise<Entity[]>;
  findBy(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<Entity[]>;
  findAndCount(options?: FindManyOptions<Entity>): Promise<[Entity[], number]>;
  findAndCountBy(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<[Entity[], number]>;
  findByIds(ids: any[], options?: any): Promise<Entity[]>;
  findOne(idOrOptions?: any, options?: any): Promise<Entity | null>;
  findOneBy(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<Entity | null>;
  findOneById(id: any): Promise<Entity | null>;
  findOneOrFail(idOrOptions?: any, options?: any): Promise<Entity>;
  findOneByOrFail(where: FindOptionsWhere<Entity> | FindOptionsWhere<Entity>[]): Promise<Entity>;
  query(query: string, parameters?: any[]): Promise<any>;
  clear(): Promise<void>;
  increment(conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  decrement(conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  extend<CustomRepository>(customs: CustomRepository & ThisType<this & CustomRepository>): this & CustomRepository;
}

export declare class TreeRepository<Entity extends ObjectLiteral> extends Repository<Entity> {
  findTrees(options?: any): Promise<Entity[]>;
  findRoots(options?: any): Promise<Entity[]>;
  findDescendants(entity: Entity, options?: any): Promise<Entity[]>;
  findDescendantsTree(entity: Entity, options?: any): Promise<Entity>;
  countDescendants(entity: Entity): Promise<number>;
  createDescendantsQueryBuilder(alias: string, closureTableAlias: string, entity: Entity): SelectQueryBuilder<Entity>;
  findAncestors(entity: Entity, options?: any): Promise<Entity[]>;
  findAncestorsTree(entity: Entity, options?: any): Promise<Entity>;
  countAncestors(entity: Entity): Promise<number>;
  createAncestorsQueryBuilder(alias: string, closureTableAlias: string, entity: Entity): SelectQueryBuilder<Entity>;
}

export declare class MongoRepository<Entity extends ObjectLiteral> extends Repository<Entity> {
  findOneAndUpdate(query: any, update: any, options?: any): Promise<any>;
  updateOne(query: any, update: any, options?: any): Promise<any>;
  updateMany(query: any, update: any, options?: any): Promise<any>;
  deleteOne(query: any, options?: any): Promise<any>;
  deleteMany(query: any, options?: any): Promise<any>;
  insertOne(doc: any, options?: any): Promise<any>;
  insertMany(docs: any[], options?: any): Promise<any>;
}

export declare class EntityManager {
  constructor(connection: DataSource, queryRunner?: QueryRunner);
  readonly connection: DataSource;
  readonly queryRunner?: QueryRunner;
  transaction<T>(runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  transaction<T>(isolationLevel: IsolationLevel, runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  query<T = any>(query: string, parameters?: any[]): Promise<T>;
  createQueryBuilder<Entity extends ObjectLiteral>(entityClass: EntityTarget<Entity>, alias: string, queryRunner?: QueryRunner): SelectQueryBuilder<Entity>;
  createQueryBuilder(queryRunner?: QueryRunner): SelectQueryBuilder<any>;
  hasId(entity: any): boolean;
  getId(entity: any): any;
  create<Entity>(entityClass: EntityTarget<Entity>, plainObjects: DeepPartial<Entity>[]): Entity[];
  create<Entity>(entityClass: EntityTarget<Entity>, plainObject?: DeepPartial<Entity>): Entity;
  merge<Entity>(entityClass: EntityTarget<Entity>, mergeIntoEntity: Entity, ...entityLikes: DeepPartial<Entity>[]): Entity;
  preload<Entity>(entityClass: EntityTarget<Entity>, entityLike: DeepPartial<Entity>): Promise<Entity | undefined>;
  save<Entity, T extends DeepPartial<Entity>>(targetOrEntity: EntityTarget<Entity>, entities: T[], options?: SaveOptions): Promise<(T & Entity)[]>;
  save<Entity, T extends DeepPartial<Entity>>(targetOrEntity: EntityTarget<Entity>, entity: T, options?: SaveOptions): Promise<T & Entity>;
  save<Entity>(entities: Entity[], options?: SaveOptions): Promise<Entity[]>;
  save<Entity>(entity: Entity, options?: SaveOptions): Promise<Entity>;
  remove<Entity>(targetOrEntity: EntityTarget<Entity>, entity: Entity | Entity[], options?: RemoveOptions): Promise<Entity>;
  remove<Entity>(entity: Entity, options?: RemoveOptions): Promise<Entity>;
  remove<Entity>(entities: Entity[], options?: RemoveOptions): Promise<Entity[]>;
  softRemove<Entity>(targetOrEntity: any, entity?: any, options?: SaveOptions): Promise<Entity>;
  recover<Entity>(targetOrEntity: any, entity?: any, options?: SaveOptions): Promise<Entity>;
  insert<Entity>(target: EntityTarget<Entity>, entity: QueryDeepPartialEntity<Entity> | QueryDeepPartialEntity<Entity>[]): Promise<InsertResult>;
  upsert<Entity>(target: EntityTarget<Entity>, entityOrEntities: any, conflictPathsOrOptions: string[] | UpsertOptions<Entity>): Promise<InsertResult>;
  update<Entity>(target: EntityTarget<Entity>, criteria: any, partialEntity: QueryDeepPartialEntity<Entity>): Promise<UpdateResult>;
  updateAll<Entity>(target: EntityTarget<Entity>, partialEntity: QueryDeepPartialEntity<Entity>): Promise<UpdateResult>;
  delete<Entity>(targetOrEntity: EntityTarget<Entity>, criteria: any): Promise<DeleteResult>;
  deleteAll<Entity>(targetOrEntity: EntityTarget<Entity>): Promise<DeleteResult>;
  softDelete<Entity>(targetOrEntity: EntityTarget<Entity>, criteria: any): Promise<UpdateResult>;
  restore<Entity>(targetOrEntity: EntityTarget<Entity>, criteria: any): Promise<UpdateResult>;
  exists<Entity>(entityClass: EntityTarget<Entity>, options?: FindManyOptions<Entity>): Promise<boolean>;
  existsBy<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<boolean>;
  count<Entity>(entityClass: EntityTarget<Entity>, options?: FindManyOptions<Entity>): Promise<number>;
  countBy<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<number>;
  sum<Entity>(entityClass: EntityTarget<Entity>, columnName: string, where?: any): Promise<number | null>;
  average<Entity>(entityClass: EntityTarget<Entity>, columnName: string, where?: any): Promise<number | null>;
  minimum<Entity>(entityClass: EntityTarget<Entity>, columnName: string, where?: any): Promise<number | null>;
  maximum<Entity>(entityClass: EntityTarget<Entity>, columnName: string, where?: any): Promise<number | null>;
  find<Entity>(entityClass: EntityTarget<Entity>, options?: FindManyOptions<Entity> | any): Promise<Entity[]>;
  findBy<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<Entity[]>;
  findAndCount<Entity>(entityClass: EntityTarget<Entity>, options?: FindManyOptions<Entity>): Promise<[Entity[], number]>;
  findAndCountBy<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<[Entity[], number]>;
  findByIds<Entity>(entityClass: EntityTarget<Entity>, ids: any[], options?: any): Promise<Entity[]>;
  findOne<Entity>(entityClass: EntityTarget<Entity>, idOrOptions?: any, options?: any): Promise<Entity | null>;
  findOneBy<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<Entity | null>;
  findOneOrFail<Entity>(entityClass: EntityTarget<Entity>, idOrOptions?: any, options?: any): Promise<Entity>;
  findOneByOrFail<Entity>(entityClass: EntityTarget<Entity>, where: any): Promise<Entity>;
  clear<Entity>(entityClass: EntityTarget<Entity>): Promise<void>;
  increment<Entity>(entityClass: EntityTarget<Entity>, conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  decrement<Entity>(entityClass: EntityTarget<Entity>, conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  getRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): Repository<Entity>;
  getTreeRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): TreeRepository<Entity>;
  getMongoRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): MongoRepository<Entity>;
  withRepository<Entity extends ObjectLiteral, R extends Repository<Entity>>(repository: R & Repository<Entity>): R;
  getCustomRepository<T>(customRepository: ObjectType<T>): T;
  release(): Promise<void>;
}

export declare class DataSource {
  constructor(options: DataSourceOptions);
  readonly name: string;
  readonly options: DataSourceOptions;
  readonly isInitialized: boolean;
  readonly isConnected: boolean;
  readonly manager: EntityManager;
  readonly driver: any;
  readonly entityMetadatas: any[];
  initialize(): Promise<this>;
  connect(): Promise<this>;
  destroy(): Promise<void>;
  close(): Promise<void>;
  synchronize(dropBeforeSync?: boolean): Promise<void>;
  dropDatabase(): Promise<void>;
  runMigrations(options?: any): Promise<any[]>;
  undoLastMigration(options?: any): Promise<void>;
  showMigrations(): Promise<boolean>;
  hasMetadata(target: any): boolean;
  getMetadata(target: any): any;
  getRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): Repository<Entity>;
  getTreeRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): TreeRepository<Entity>;
  getMongoRepository<Entity extends ObjectLiteral>(target: EntityTarget<Entity>): MongoRepository<Entity>;
  getCustomRepository<T>(customRepository: ObjectType<T>): T;
  transaction<T>(runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  transaction<T>(isolationLevel: IsolationLevel, runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  query<T = any>(query: string, parameters?: any[], queryRunner?: QueryRunner): Promise<T>;
  createQueryBuilder<Entity extends ObjectLiteral>(entityClass: EntityTarget<Entity>, alias: string, queryRunner?: QueryRunner): SelectQueryBuilder<Entity>;
  createQueryBuilder(queryRunner?: QueryRunner): SelectQueryBuilder<any>;
  createQueryRunner(mode?: ReplicationMode): QueryRunner;
  createEntityManager(queryRunner?: QueryRunner): EntityManager;
  setOptions(options: any): this;
}
/** 0.2 name of DataSource (still exported, deprecated, in 0.3). */
export declare class Connection extends DataSource {}

export interface QueryRunner {
  readonly connection: DataSource;
  readonly manager: EntityManager;
  readonly isReleased: boolean;
  readonly isTransactionActive: boolean;
  data: any;
  connect(): Promise<any>;
  release(): Promise<void>;
  startTransaction(isolationLevel?: IsolationLevel): Promise<void>;
  commitTransaction(): Promise<void>;
  rollbackTransaction(): Promise<void>;
  query(query: string, parameters?: any[], useStructuredResult?: boolean): Promise<any>;
  stream(query: string, parameters?: any[]): Promise<any>;
  hasTable(table: any): Promise<boolean>;
  createTable(table: any, ifNotExist?: boolean): Promise<void>;
  dropTable(table: any): Promise<void>;
  addColumn(table: any, column: any): Promise<void>;
  dropColumn(table: any, column: any): Promise<void>;
  createIndex(table: any, index: any): Promise<void>;
  dropIndex(table: any, index: any): Promise<void>;
  createForeignKey(table: any, fk: any): Promise<void>;
  dropForeignKey(table: any, fk: any): Promise<void>;
  [key: string]: any;
}

export interface WhereExpressionBuilder {
  where(where: any, parameters?: ObjectLiteral): this;
  andWhere(where: any, parameters?: ObjectLiteral): this;
  orWhere(where: any, parameters?: ObjectLiteral): this;
  whereInIds(ids: any): this;
  andWhereInIds(ids: any): this;
  orWhereInIds(ids: any): this;
}
export declare class Brackets {
  constructor(whereFactory: (qb: WhereExpressionBuilder) => any);
}
export declare class NotBrackets extends Brackets {}

export declare abstract class QueryBuilder<Entity extends ObjectLiteral> implements WhereExpressionBuilder {
  readonly connection: DataSource;
  readonly expressionMap: any;
  where(where: any, parameters?: ObjectLiteral): this;
  andWhere(where: any, parameters?: ObjectLiteral): this;
  orWhere(where: any, parameters?: ObjectLiteral): this;
  whereInIds(ids: any): this;
  andWhereInIds(ids: any): this;
  orWhereInIds(ids: any): this;
  whereExists(subQuery: any): this;
  andWhereExists(subQuery: any): this;
  orWhereExists(subQuery: any): this;
  setParameter(key: string, value: any): this;
  setParameters(parameters: ObjectLiteral): this;
  setNativeParameters(parameters: ObjectLiteral): this;
  getParameters(): ObjectLiteral;
  getQuery(): string;
  getSql(): string;
  getQueryAndParameters(): [string, any[]];
  printSql(): this;
  setQueryRunner(queryRunner: QueryRunner): this;
  useTransaction(enabled: boolean): this;
  callListeners(enabled: boolean): this;
  comment(comment: string): this;
  select(selection?: any, selectionAliasName?: string): SelectQueryBuilder<Entity>;
  insert(): InsertQueryBuilder<Entity>;
  update(): UpdateQueryBuilder<Entity>;
  update(updateSet: QueryDeepPartialEntity<Entity>): UpdateQueryBuilder<Entity>;
  update<T extends ObjectLiteral>(entity: EntityTarget<T>, updateSet?: QueryDeepPartialEntity<T>): UpdateQueryBuilder<T>;
  delete(): DeleteQueryBuilder<Entity>;
  softDelete(): SoftDeleteQueryBuilder<Entity>;
  restore(): SoftDeleteQueryBuilder<Entity>;
  relation(propertyPath: string): RelationQueryBuilder<Entity>;
  relation<T extends ObjectLiteral>(entityTarget: EntityTarget<T>, propertyPath: string): RelationQueryBuilder<T>;
  createQueryBuilder(queryRunner?: QueryRunner): this;
  clone(): this;
  execute(): Promise<any>;
  returning(columns: string | string[]): this;
}

export declare class SelectQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  subQuery(): SelectQueryBuilder<any>;
  select(selection?: any, selectionAliasName?: string): this;
  addSelect(selection: any, selectionAliasName?: string): this;
  distinct(distinct?: boolean): this;
  distinctOn(distinctOn: string[]): this;
  fromDummy(): SelectQueryBuilder<any>;
  from<T extends ObjectLiteral>(entityTarget: EntityTarget<T> | ((qb: SelectQueryBuilder<any>) => SelectQueryBuilder<any>), aliasName: string): SelectQueryBuilder<T>;
  addFrom<T extends ObjectLiteral>(entityTarget: EntityTarget<T>, aliasName: string): SelectQueryBuilder<T>;
  innerJoin(property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  leftJoin(property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  innerJoinAndSelect(property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  leftJoinAndSelect(property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  innerJoinAndMapOne(mapToProperty: string, property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  innerJoinAndMapMany(mapToProperty: string, property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  leftJoinAndMapOne(mapToProperty: string, property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  leftJoinAndMapMany(mapToProperty: string, property: any, alias: string, condition?: string, parameters?: ObjectLiteral): this;
  loadRelationIdAndMap(mapToProperty: string, relationName: string, ...args: any[]): this;
  loadRelationCountAndMap(mapToProperty: string, relationName: string, ...args: any[]): this;
  loadAllRelationIds(options?: any): this;
  orderBy(sort?: any, order?: "ASC" | "DESC", nulls?: string): this;
  addOrderBy(sort: string, order?: "ASC" | "DESC", nulls?: string): this;
  groupBy(groupBy?: string): this;
  addGroupBy(groupBy: string): this;
  having(having: string, parameters?: ObjectLiteral): this;
  andHaving(having: string, parameters?: ObjectLiteral): this;
  orHaving(having: string, parameters?: ObjectLiteral): this;
  limit(limit?: number): this;
  offset(offset?: number): this;
  take(take?: number): this;
  skip(skip?: number): this;
  withDeleted(): this;
  setLock(lockMode: string, lockVersion?: any, lockTables?: string[]): this;
  setOnLocked(onLocked: "nowait" | "skip_locked"): this;
  setFindOptions(findOptions: FindManyOptions<Entity>): this;
  cache(enabled: any, milliseconds?: number): this;
  timeTravelQuery(timeTravelFn?: string | boolean): this;
  getRawOne<T = any>(): Promise<T | undefined>;
  getRawMany<T = any>(): Promise<T[]>;
  getRawAndEntities<T = any>(): Promise<{ entities: Entity[]; raw: T[] }>;
  getOne(): Promise<Entity | null>;
  getOneOrFail(): Promise<Entity>;
  getMany(): Promise<Entity[]>;
  getCount(): Promise<number>;
  getExists(): Promise<boolean>;
  getManyAndCount(): Promise<[Entity[], number]>;
  stream(): Promise<any>;
}
export declare class InsertQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  into<T extends ObjectLiteral>(entityTarget: EntityTarget<T>, columns?: string[]): InsertQueryBuilder<T>;
  values(values: QueryDeepPartialEntity<Entity> | QueryDeepPartialEntity<Entity>[]): this;
  output(columns: any): this;
  onConflict(statement: string): this;
  orIgnore(statement?: string | boolean): this;
  orUpdate(overwrite: any, conflictTarget?: any, orUpdateOptions?: any): this;
  updateEntity(enabled: boolean): this;
  execute(): Promise<InsertResult>;
}
export declare class UpdateQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  set(values: QueryDeepPartialEntity<Entity>): this;
  output(columns: any): this;
  orderBy(sort?: any, order?: "ASC" | "DESC"): this;
  limit(limit?: number): this;
  whereEntity(entity: Entity | Entity[]): this;
  updateEntity(enabled: boolean): this;
  execute(): Promise<UpdateResult>;
}
export declare class DeleteQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  from<T extends ObjectLiteral>(entityTarget: EntityTarget<T>, aliasName?: string): DeleteQueryBuilder<T>;
  output(columns: any): this;
  execute(): Promise<DeleteResult>;
}
export declare class SoftDeleteQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  from<T extends ObjectLiteral>(entityTarget: EntityTarget<T>, aliasName?: string): SoftDeleteQueryBuilder<T>;
  execute(): Promise<UpdateResult>;
}
export declare class RelationQueryBuilder<Entity extends ObjectLiteral> extends QueryBuilder<Entity> {
  of(entity: any): this;
  set(value: any): Promise<void>;
  add(value: any): Promise<void>;
  remove(value: any): Promise<void>;
  addAndRemove(added: any, removed: any): Promise<void>;
  loadOne<T = any>(): Promise<T | undefined>;
  loadMany<T = any>(): Promise<T[]>;
}

/** ActiveRecord base class: entities extending it get static finders and instance save(). */
export declare class BaseEntity {
  static useDataSource(dataSource: DataSource | null): void;
  static readonly target: any;
  static getRepository<T extends BaseEntity>(this: { new (): T }): Repository<T>;
  static createQueryBuilder<T extends BaseEntity>(this: { new (): T }, alias?: string): SelectQueryBuilder<T>;
  static hasId(entity: BaseEntity): boolean;
  static getId<T extends BaseEntity>(this: { new (): T }, entity: T): any;
  static create<T extends BaseEntity>(this: { new (): T }): T;
  static create<T extends BaseEntity>(this: { new (): T }, entityLikeArray: DeepPartial<T>[]): T[];
  static create<T extends BaseEntity>(this: { new (): T }, entityLike: DeepPartial<T>): T;
  static merge<T extends BaseEntity>(this: { new (): T }, mergeIntoEntity: T, ...entityLikes: DeepPartial<T>[]): T;
  static preload<T extends BaseEntity>(this: { new (): T }, entityLike: DeepPartial<T>): Promise<T | undefined>;
  static save<T extends BaseEntity>(this: { new (): T }, entities: DeepPartial<T>[], options?: SaveOptions): Promise<T[]>;
  static save<T extends BaseEntity>(this: { new (): T }, entity: DeepPartial<T>, options?: SaveOptions): Promise<T>;
  static remove<T extends BaseEntity>(this: { new (): T }, entities: T[] | T, options?: RemoveOptions): Promise<T>;
  static softRemove<T extends BaseEntity>(this: { new (): T }, entities: T[] | T, options?: SaveOptions): Promise<T>;
  static insert<T extends BaseEntity>(this: { new (): T }, entity: any): Promise<InsertResult>;
  static update<T extends BaseEntity>(this: { new (): T }, criteria: any, partialEntity: any): Promise<UpdateResult>;
  static upsert<T extends BaseEntity>(this: { new (): T }, entityOrEntities: any, conflictPathsOrOptions: any): Promise<InsertResult>;
  static delete<T extends BaseEntity>(this: { new (): T }, criteria: any): Promise<DeleteResult>;
  static softDelete<T extends BaseEntity>(this: { new (): T }, criteria: any): Promise<UpdateResult>;
  static restore<T extends BaseEntity>(this: { new (): T }, criteria: any): Promise<UpdateResult>;
  static exists<T extends BaseEntity>(this: { new (): T }, options?: FindManyOptions<T>): Promise<boolean>;
  static existsBy<T extends BaseEntity>(this: { new (): T }, where: any): Promise<boolean>;
  static count<T extends BaseEntity>(this: { new (): T }, options?: FindManyOptions<T>): Promise<number>;
  static countBy<T extends BaseEntity>(this: { new (): T }, where: any): Promise<number>;
  static sum<T extends BaseEntity>(this: { new (): T }, columnName: string, where?: any): Promise<number | null>;
  static average<T extends BaseEntity>(this: { new (): T }, columnName: string, where?: any): Promise<number | null>;
  static minimum<T extends BaseEntity>(this: { new (): T }, columnName: string, where?: any): Promise<number | null>;
  static maximum<T extends BaseEntity>(this: { new (): T }, columnName: string, where?: any): Promise<number | null>;
  static find<T extends BaseEntity>(this: { new (): T }, options?: FindManyOptions<T> | any): Promise<T[]>;
  static findBy<T extends BaseEntity>(this: { new (): T }, where: any): Promise<T[]>;
  static findAndCount<T extends BaseEntity>(this: { new (): T }, options?: FindManyOptions<T>): Promise<[T[], number]>;
  static findAndCountBy<T extends BaseEntity>(this: { new (): T }, where: any): Promise<[T[], number]>;
  static findByIds<T extends BaseEntity>(this: { new (): T }, ids: any[], options?: any): Promise<T[]>;
  static findOne<T extends BaseEntity>(this: { new (): T }, idOrOptions?: any, options?: any): Promise<T | null>;
  static findOneBy<T extends BaseEntity>(this: { new (): T }, where: any): Promise<T | null>;
  static findOneById<T extends BaseEntity>(this: { new (): T }, id: any): Promise<T | null>;
  static findOneOrFail<T extends BaseEntity>(this: { new (): T }, idOrOptions?: any, options?: any): Promise<T>;
  static findOneByOrFail<T extends BaseEntity>(this: { new (): T }, where: any): Promise<T>;
  static query<T extends BaseEntity>(this: { new (): T }, query: string, parameters?: any[]): Promise<any>;
  static clear<T extends BaseEntity>(this: { new (): T }): Promise<void>;
  static increment<T extends BaseEntity>(this: { new (): T }, conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  static decrement<T extends BaseEntity>(this: { new (): T }, conditions: any, propertyPath: string, value: number | string): Promise<UpdateResult>;
  hasId(): boolean;
  save(options?: SaveOptions): Promise<this>;
  remove(options?: RemoveOptions): Promise<this>;
  softRemove(options?: SaveOptions): Promise<this>;
  recover(options?: SaveOptions): Promise<this>;
  reload(): Promise<void>;
}

export interface EntitySchemaColumnOptions { [key: string]: any }
export interface EntitySchemaRelationOptions { [key: string]: any }
export interface EntitySchemaOptions<T> {
  name: string;
  target?: Function;
  tableName?: string;
  type?: string;
  columns: { [P in keyof T]?: EntitySchemaColumnOptions } | { [key: string]: EntitySchemaColumnOptions };
  relations?: { [key: string]: EntitySchemaRelationOptions };
  indices?: any[];
  uniques?: any[];
  checks?: any[];
  [key: string]: any;
}
export declare class EntitySchema<T = any> {
  constructor(options: EntitySchemaOptions<T>);
  readonly options: EntitySchemaOptions<T>;
}

// Decorators: loose on purpose; txscan reads their arguments from the syntax tree.
type AnyDecorator = (...args: any[]) => any;
export declare function Entity(nameOrOptions?: any, maybeOptions?: any): AnyDecorator;
export declare function ViewEntity(nameOrOptions?: any, maybeOptions?: any): AnyDecorator;
export declare function ChildEntity(discriminatorValue?: any): AnyDecorator;
export declare function TableInheritance(options?: any): AnyDecorator;
export declare function Column(...args: any[]): AnyDecorator;
export declare function PrimaryColumn(...args: any[]): AnyDecorator;
export declare function PrimaryGeneratedColumn(...args: any[]): AnyDecorator;
export declare function ObjectIdColumn(...args: any[]): AnyDecorator;
export declare function CreateDateColumn(...args: any[]): AnyDecorator;
export declare function UpdateDateColumn(...args: any[]): AnyDecorator;
export declare function DeleteDateColumn(...args: any[]): AnyDecorator;
export declare function VersionColumn(...args: any[]): AnyDecorator;
export declare function ViewColumn(...args: any[]): AnyDecorator;
export declare function VirtualColumn(...args: any[]): AnyDecorator;
export declare function Generated(...args: any[]): AnyDecorator;
export declare function Tree(...args: any[]): AnyDecorator;
export declare function TreeParent(...args: any[]): AnyDecorator;
export declare function TreeChildren(...args: any[]): AnyDecorator;
export declare function TreeLevelColumn(...args: any[]): AnyDecorator;
export declare function OneToOne(...args: any[]): AnyDecorator;
export declare function ManyToOne(...args: any[]): AnyDecorator;
export declare function OneToMany(...args: any[]): AnyDecorator;
export declare function ManyToMany(...args: any[]): AnyDecorator;
export declare function JoinColumn(...args: any[]): AnyDecorator;
export declare function JoinTable(...args: any[]): AnyDecorator;
export declare function RelationId(...args: any[]): AnyDecorator;
export declare function RelationCount(...args: any[]): AnyDecorator;
export declare function Index(...args: any[]): AnyDecorator;
export declare function Unique(...args: any[]): AnyDecorator;
export declare function Check(...args: any[]): AnyDecorator;
export declare function Exclusion(...args: any[]): AnyDecorator;
export declare function EntityRepository(entity?: any): AnyDecorator;
export declare function EventSubscriber(): AnyDecorator;
export declare function AfterLoad(): AnyDecorator;
export declare function BeforeInsert(): AnyDecorator;
export declare function AfterInsert(): AnyDecorator;
export declare function BeforeUpdate(): AnyDecorator;
export declare function AfterUpdate(): AnyDecorator;
export declare function BeforeRemove(): AnyDecorator;
export declare function AfterRemove(): AnyDecorator;
export declare function BeforeSoftRemove(): AnyDecorator;
export declare function AfterSoftRemove(): AnyDecorator;
export declare function BeforeRecover(): AnyDecorator;
export declare function AfterRecover(): AnyDecorator;
/** Legacy (0.2) transaction decorators. */
export declare function Transaction(connectionOrOptions?: any): AnyDecorator;
export declare function TransactionManager(): AnyDecorator;
export declare function TransactionRepository(entity?: any): AnyDecorator;

// 0.2 global helpers (removed in 0.3/1.x, still common in corpora).
export declare function getManager(connectionName?: string): EntityManager;
export declare function getConnection(connectionName?: string): Connection;
export declare function getRepository<Entity extends ObjectLiteral>(entityClass: EntityTarget<Entity>, connectionName?: string): Repository<Entity>;
export declare function getTreeRepository<Entity extends ObjectLiteral>(entityClass: EntityTarget<Entity>, connectionName?: string): TreeRepository<Entity>;
export declare function getMongoRepository<Entity extends ObjectLiteral>(entityClass: EntityTarget<Entity>, connectionName?: string): MongoRepository<Entity>;
export declare function getCustomRepository<T>(customRepository: ObjectType<T>, connectionName?: string): T;
export declare function getMongoManager(connectionName?: string): EntityManager;
export declare function createQueryBuilder<Entity extends ObjectLiteral>(entityClass?: EntityTarget<Entity>, alias?: string, connectionName?: string): SelectQueryBuilder<Entity>;
export declare function createConnection(options?: any): Promise<Connection>;
export declare function createConnections(options?: any[]): Promise<Connection[]>;
export declare function getConnectionManager(): any;
export declare function getConnectionOptions(connectionName?: string): Promise<any>;
export declare function getMetadataArgsStorage(): any;

export interface EntitySubscriberInterface<Entity = any> {
  listenTo?(): Function | string;
  afterLoad?(entity: Entity, event?: any): Promise<any> | void;
  beforeInsert?(event: InsertEvent<Entity>): Promise<any> | void;
  afterInsert?(event: InsertEvent<Entity>): Promise<any> | void;
  beforeUpdate?(event: UpdateEvent<Entity>): Promise<any> | void;
  afterUpdate?(event: UpdateEvent<Entity>): Promise<any> | void;
  beforeRemove?(event: RemoveEvent<Entity>): Promise<any> | void;
  afterRemove?(event: RemoveEvent<Entity>): Promise<any> | void;
}
export interface InsertEvent<Entity> { connection: DataSource; queryRunner: QueryRunner; manager: EntityManager; entity: Entity }
export interface UpdateEvent<Entity> { connection: DataSource; queryRunner: QueryRunner; manager: EntityManager; entity: any; databaseEntity: Entity }
export interface RemoveEvent<Entity> { connection: DataSource; queryRunner: QueryRunner; manager: EntityManager; entity?: Entity; databaseEntity: Entity; entityId?: any }
export interface MigrationInterface { name?: string; up(queryRunner: QueryRunner): Promise<any>; down(queryRunner: QueryRunner): Promise<any> }
export interface ValueTransformer { to(value: any): any; from(value: any): any }
export interface NamingStrategyInterface { [key: string]: any }
export declare class DefaultNamingStrategy implements NamingStrategyInterface { [key: string]: any }
export interface Logger { [key: string]: any }
export declare class Table { constructor(options?: any); [key: string]: any }
export declare class TableColumn { constructor(options?: any); [key: string]: any }
export declare class TableIndex { constructor(options?: any); [key: string]: any }
export declare class TableForeignKey { constructor(options?: any); [key: string]: any }
export declare class TableUnique { constructor(options?: any); [key: string]: any }
export declare class TypeORMError extends Error {}
export declare class QueryFailedError extends TypeORMError { readonly query: string; readonly parameters: any[]; readonly driverError: any }
export declare class EntityNotFoundError extends TypeORMError {}
export declare class EntityMetadata { [key: string]: any }
/** Builds find options into a query builder (joins, selections); runs no statement. */
export declare class FindOptionsUtils {
  static isFindOneOptions(obj: any): boolean;
  static isFindManyOptions(obj: any): boolean;
  static extractFindManyOptionsAlias(object: any): string | undefined;
  static joinEagerRelations(qb: SelectQueryBuilder<any>, alias: string, metadata: EntityMetadata): void;
}
