import { applyDecorators, SetMetadata, UseInterceptors } from "@nestjs/common";
import { TransactionInterceptor } from "./transaction.interceptor";

export const TRANSACTION_ISOLATION = "shop:transaction-isolation";

export type IsolationLevel = "READ COMMITTED" | "REPEATABLE READ" | "SERIALIZABLE";

/**
 * Runs the decorated handler in one database transaction (vendure-style request-context
 * transaction): services see it through `connection.getRepository(ctx, Entity)`.
 */
export const Transaction = (isolationLevel?: IsolationLevel) =>
  applyDecorators(SetMetadata(TRANSACTION_ISOLATION, isolationLevel), UseInterceptors(TransactionInterceptor));
