// The request-context transaction machinery of an app (vendure's pattern), shared by the tests:
// a context holding the runner, a transactional connection, an interceptor that starts the
// transaction two calls away, and the app's @Transaction() decorator.
"use strict";

const CONTEXT = `import { QueryRunner } from "typeorm";
export class RequestContext {
  constructor(readonly userId: number | null) {}
  queryRunner?: QueryRunner;
}
`;

const CONNECTION = `import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, EntityTarget, ObjectLiteral, Repository } from "typeorm";
import { RequestContext } from "./context";
@Injectable()
export class TransactionalConnection {
  constructor(@InjectDataSource() private dataSource: DataSource) {}
  getRepository<T extends ObjectLiteral>(target: EntityTarget<T>): Repository<T>;
  getRepository<T extends ObjectLiteral>(ctx: RequestContext | undefined, target: EntityTarget<T>): Repository<T>;
  getRepository<T extends ObjectLiteral>(a: RequestContext | EntityTarget<T> | undefined, b?: EntityTarget<T>): Repository<T> {
    if (a instanceof RequestContext && a.queryRunner) return a.queryRunner.manager.getRepository(b!);
    return this.dataSource.getRepository((a as EntityTarget<T>) ?? b!);
  }
  async findById<T extends ObjectLiteral>(ctx: RequestContext, target: EntityTarget<T>, id: number): Promise<T | null> {
    return this.getRepository(ctx, target).findOneBy({ id } as any);
  }
}
`;

// The start is two calls away from the interceptor (vendure: TransactionWrapper).
const INTERCEPTOR = `import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from "@nestjs/common";
import { DataSource, QueryRunner } from "typeorm";
import { RequestContext } from "./context";
export class TxHelper {
  constructor(private ds: DataSource) {}
  async open(ctx: RequestContext, level?: any) {
    const qr = this.ds.createQueryRunner();
    await this.begin(qr, level);
    ctx.queryRunner = qr;
  }
  private async begin(qr: QueryRunner, level?: any) {
    await qr.startTransaction(level);
  }
}
@Injectable()
export class TxInterceptor implements NestInterceptor {
  constructor(private helper: TxHelper) {}
  async intercept(context: ExecutionContext, next: CallHandler) {
    const ctx: RequestContext = context.switchToHttp().getRequest().ctx;
    await this.helper.open(ctx);
    const result = await next.handle().toPromise();
    await ctx.queryRunner!.commitTransaction();
    return result;
  }
}
@Injectable()
export class LogInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    console.log(context.getHandler().name);
    return next.handle();
  }
}
`;

const DECORATORS = `import { applyDecorators, SetMetadata, UseInterceptors } from "@nestjs/common";
import { TxInterceptor, LogInterceptor } from "./interceptor";
export const Transaction = (mode: "auto" | "manual" = "auto", isolationLevel?: string) =>
  applyDecorators(SetMetadata("tx-mode", mode), SetMetadata("tx-isolation", isolationLevel), UseInterceptors(TxInterceptor));
export function Logged() {
  return UseInterceptors(LogInterceptor);
}
/** named like a transaction, but its interceptor starts none */
export function TransactionLog() {
  return applyDecorators(UseInterceptors(LogInterceptor));
}
`;

module.exports = { CONTEXT, CONNECTION, INTERCEPTOR, DECORATORS };
