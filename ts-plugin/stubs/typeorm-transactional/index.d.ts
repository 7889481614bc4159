// Declaration stub for `typeorm-transactional` (and its predecessor
// `typeorm-transactional-cls-hooked`), used only when the real module cannot be resolved.
// Inside a @Transactional() method every repository of a registered data source joins the
// transaction held in the continuation-local context, so txscan does not flag them as escaped.
import { DataSource, Repository } from "typeorm";
export declare enum Propagation {
  MANDATORY = "MANDATORY",
  NESTED = "NESTED",
  NEVER = "NEVER",
  NOT_SUPPORTED = "NOT_SUPPORTED",
  REQUIRED = "REQUIRED",
  REQUIRES_NEW = "REQUIRES_NEW",
  SUPPORTS = "SUPPORTS"
}
export declare enum IsolationLevel {
  READ_UNCOMMITTED = "READ UNCOMMITTED",
  READ_COMMITTED = "READ COMMITTED",
  REPEATABLE_READ = "REPEATABLE READ",
  SERIALIZABLE = "SERIALIZABLE"
}
export declare enum StorageDriver { CLS_HOOKED = "CLS_HOOKED", ASYNC_LOCAL_STORAGE = "ASYNC_LOCAL_STORAGE", AUTO = "AUTO" }
export interface WrapInTransactionOptions {
  connectionName?: string;
  name?: string | symbol;
  propagation?: Propagation | string;
  isolationLevel?: IsolationLevel | string;
}
export declare function Transactional(options?: WrapInTransactionOptions): (...args: any[]) => any;
export declare function runInTransaction<T>(fn: () => T, options?: WrapInTransactionOptions): T;
export declare function wrapInTransaction<Fn extends (...args: any[]) => any>(fn: Fn, options?: WrapInTransactionOptions): Fn;
export declare function initializeTransactionalContext(options?: { storageDriver?: StorageDriver | string; maxHookHandlers?: number }): void;
export declare function addTransactionalDataSource(input: DataSource | { dataSource: DataSource; name?: string; patch?: boolean }): DataSource;
export declare function getDataSourceByName(name: string): DataSource | undefined;
export declare function deleteDataSourceByName(name: string): void;
export declare function runOnTransactionCommit(cb: () => void): void;
export declare function runOnTransactionRollback(cb: (e: Error) => void): void;
export declare function runOnTransactionComplete(cb: (e: Error | undefined) => void): void;
export declare function patchTypeORMRepositoryWithBaseRepository(): void;
export declare class BaseRepository<Entity extends { [key: string]: any }> extends Repository<Entity> {}
