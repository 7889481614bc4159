import { EntityManager } from "typeorm";

/** Services of the container share this base: `withTransaction(manager)` returns a copy bound
 *  to the transaction's manager, so the copy's statements run inside it. */
export abstract class BaseService {
  protected manager: EntityManager;
  protected transactionManager?: EntityManager;

  constructor(protected readonly deps: Record<string, any>) {
    this.manager = deps.manager;
  }

  protected get activeManager(): EntityManager {
    return this.transactionManager ?? this.manager;
  }

  withTransaction(manager?: EntityManager): this {
    if (!manager) return this;
    const copy = new (this.constructor as any)(this.deps);
    copy.transactionManager = manager;
    return copy;
  }
}
