import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, EntityTarget, FindOptionsWhere, ObjectLiteral, Repository } from "typeorm";
import { RequestContext } from "./request-context";

/**
 * The shop's access point to the database for request-scoped code: repositories obtained with
 * a RequestContext run in the request's transaction (if @Transaction() opened one); without a
 * context they run on the plain data source, outside any transaction.
 */
@Injectable()
export class TransactionalConnection {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The plain data source: never part of a request transaction. */
  get rawConnection(): DataSource {
    return this.dataSource;
  }

  getRepository<T extends ObjectLiteral>(target: EntityTarget<T>): Repository<T>;
  getRepository<T extends ObjectLiteral>(ctx: RequestContext | undefined, target: EntityTarget<T>): Repository<T>;
  getRepository<T extends ObjectLiteral>(ctxOrTarget: RequestContext | EntityTarget<T> | undefined, maybeTarget?: EntityTarget<T>): Repository<T> {
    if (ctxOrTarget instanceof RequestContext) {
      const runner = ctxOrTarget.queryRunner;
      if (runner) return runner.manager.getRepository(maybeTarget!);
      return this.dataSource.getRepository(maybeTarget!);
    }
    return this.dataSource.getRepository(ctxOrTarget ?? maybeTarget!);
  }

  /** Loads one row by id in the request's transaction, or throws. */
  async getEntityOrThrow<T extends ObjectLiteral>(ctx: RequestContext, target: EntityTarget<T>, id: string): Promise<T> {
    const found = await this.getRepository(ctx, target).findOneBy({ id } as FindOptionsWhere<T>);
    if (!found) throw new Error(`${String(target)} ${id} not found`);
    return found;
  }
}
