import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, EntityManager } from "typeorm";

/**
 * The shop's own wrapper: joins the caller's transaction when a manager is passed, opens one
 * otherwise (a pattern seen in many NestJS code bases).
 */
@Injectable()
export class TransactionRunner {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async run<T>(work: (manager: EntityManager) => Promise<T>, outer?: EntityManager): Promise<T> {
    if (outer) {
      return work(outer);
    }
    return this.dataSource.transaction(work);
  }
}

/** Retry pause used by optimistic-lock retries. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
