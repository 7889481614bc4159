// Data table: how NestJS applications attach a request-context transaction to a handler.
// An app-defined method decorator (vendure's `@Transaction()`) does not start anything itself:
// it applies an interceptor or guard (through these @nestjs/common decorator factories) whose
// code starts a TypeORM transaction and stores its QueryRunner in the request context. The
// services below then ask a "transactional connection" for `getRepository(ctx, Entity)`.

/** @nestjs/common exports that attach classes (interceptors, guards) to a handler. */
export const HANDLER_ENHANCERS: Readonly<Record<string, ReadonlySet<string>>> = {
  "@nestjs/common": new Set(["UseInterceptors", "UseGuards"]),
};

/** Decorator factories that only combine other decorators: their arguments are searched too. */
export const DECORATOR_COMBINATORS: Readonly<Record<string, ReadonlySet<string>>> = {
  "@nestjs/common": new Set(["applyDecorators"]),
};

/** How deep the search for a transaction start follows the application's own calls from an
 *  interceptor (vendure: intercept -> TransactionWrapper.executeInTransaction ->
 *  startTransaction -> queryRunner.startTransaction()). */
export const START_SEARCH_DEPTH = 5;

/** Fallback when the start cannot be followed: an enhancer class named like a transaction
 *  whose module imports one of these TypeORM types. */
export const TRANSACTION_CLASS_NAME = /transaction/i;
export const TRANSACTION_IMPORTS = new Set(["QueryRunner", "DataSource", "Connection", "EntityManager"]);

/** Decorator parameters named like this are the isolation level (the IR's `isolation` option). */
export const ISOLATION_PARAMETER = /isolation/i;
