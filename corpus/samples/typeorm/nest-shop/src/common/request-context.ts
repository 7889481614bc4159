import { createParamDecorator } from "@nestjs/common";
import { QueryRunner } from "typeorm";

/**
 * Per-request state handed explicitly to every service call (vendure's RequestContext). When
 * the handler is decorated with @Transaction(), TransactionInterceptor stores the runner of
 * the request's transaction here, and TransactionalConnection.getRepository(ctx, Entity)
 * returns repositories bound to it.
 */
export class RequestContext {
  constructor(readonly userId: string | null) {}

  /** set by TransactionInterceptor for the duration of the request */
  queryRunner?: QueryRunner;
}

/** `@Ctx() ctx: RequestContext` in controllers. */
export const Ctx = createParamDecorator((_data: unknown, context: any) => context.switchToHttp().getRequest().ctx);
