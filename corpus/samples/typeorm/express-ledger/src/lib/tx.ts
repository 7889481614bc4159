import { EntityManager, QueryRunner } from "typeorm";
import { AppDataSource } from "../data-source";

/**
 * Runs `work` inside a QueryRunner transaction and always releases the runner. Call sites are
 * transactions of their own (this function is the wrapper that opens them).
 */
export async function withQueryRunner<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = AppDataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  try {
    const result = await work(runner.manager);
    await runner.commitTransaction();
    return result;
  } catch (err) {
    await runner.rollbackTransaction();
    throw err;
  } finally {
    await runner.release();
  }
}

/** Starts a transaction and hands the runner to the caller, who commits or rolls back. */
export async function beginTransaction(): Promise<QueryRunner> {
  const runner = AppDataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  return runner;
}
