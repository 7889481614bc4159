// Declaration stub for `@nestjs/typeorm` (used only when the real module cannot be resolved).
// The injection decorators matter to txscan: @InjectRepository(User) marks a repository that
// is NOT bound to any transaction's manager; @InjectDataSource/@InjectEntityManager give the
// global data source/manager whose .transaction() opens a transaction.
import { DataSource, EntityManager, Repository, EntitySchema } from "typeorm";
type AnyDecorator = (...args: any[]) => any;
export declare function InjectRepository(entity?: Function | EntitySchema<any> | string, dataSource?: any): AnyDecorator;
export declare function InjectDataSource(dataSource?: any): AnyDecorator;
export declare function InjectConnection(connection?: any): AnyDecorator;
export declare function InjectEntityManager(dataSource?: any): AnyDecorator;
export declare function getRepositoryToken(entity: any, dataSource?: any): any;
export declare function getDataSourceToken(dataSource?: any): any;
export declare function getConnectionToken(connection?: any): any;
export declare function getEntityManagerToken(dataSource?: any): any;
export type TypeOrmModuleOptions = any;
export type TypeOrmModuleAsyncOptions = any;
export interface TypeOrmOptionsFactory { createTypeOrmOptions(connectionName?: string): any }
export declare class TypeOrmModule {
  static forRoot(options?: any): any;
  static forRootAsync(options: any): any;
  static forFeature(entities?: any[], dataSource?: any): any;
}
export type { DataSource, EntityManager, Repository };
