import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";
import { RequestContext } from "./request-context";
import { TRANSACTION_ISOLATION } from "./transaction.decorator";

/**
 * Runs the handler in a transaction: opens it, stores its runner in the RequestContext, and
 * commits when the handler completes (rolls back when it throws).
 */
@Injectable()
export class TransactionInterceptor implements NestInterceptor {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<unknown> {
    const ctx: RequestContext = context.switchToHttp().getRequest().ctx;
    const isolation = (Reflect as any).getMetadata(TRANSACTION_ISOLATION, context.getHandler());
    await this.begin(ctx, isolation);
    const runner = ctx.queryRunner!;
    try {
      const result = await next.handle().toPromise();
      await runner.commitTransaction();
      return result;
    } catch (err) {
      await runner.rollbackTransaction();
      throw err;
    } finally {
      await runner.release();
      ctx.queryRunner = undefined;
    }
  }

  /** Opens the request's transaction; the runner travels with the context. */
  private async begin(ctx: RequestContext, isolation?: any): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction(isolation);
    ctx.queryRunner = runner;
  }
}
