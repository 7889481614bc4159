import { ConflictException, Injectable } from "@nestjs/common";
import { InjectEntityManager } from "@nestjs/typeorm";
import { EntityManager } from "typeorm";
import { Customer } from "./customer.entity";
import { Order } from "@shop/orders/order.entity";
import { TransactionRunner } from "@shop/common/transaction-runner";
import { pause } from "@shop/common/transaction-runner";

@Injectable()
export class CustomersService {
  constructor(
    @InjectEntityManager() private readonly manager: EntityManager,
    private readonly runner: TransactionRunner,
  ) {}

  /** exists-then-insert on the email (a unique key, but not the primary key). */
  async register(email: string, name: string): Promise<void> {
    await this.manager.transaction(async (em) => {
      const taken = await em.existsBy(Customer, { email });
      if (taken) {
        throw new ConflictException("email already registered");
      }
      await em.insert(Customer, { email, name });
    });
  }

  /** Read-modify-write in application code. */
  async rename(customerId: string, name: string): Promise<void> {
    await this.manager.transaction(async (em) => {
      const customer = await em.findOneByOrFail(Customer, { id: customerId });
      customer.name = name.trim();
      await em.save(customer);
    });
  }

  /** One-shot: increment in the database. */
  async addLoyaltyPoints(customerId: string, points: number): Promise<void> {
    await this.manager.transaction(async (em) => {
      await em.increment(Customer, { id: customerId }, "loyaltyPoints", points);
    });
  }

  /** Moves the orders of a duplicate account, then deletes it. */
  async merge(keepId: string, dropId: string): Promise<void> {
    await this.manager.transaction(async (em) => {
      await em.update(Order, { customer: { id: dropId } }, { customerId: keepId });
      await em.delete(Customer, dropId);
    });
  }

  /** Through the project's wrapper; the transaction line is the wrapper call. */
  async transferPoints(fromId: string, toId: string, points: number): Promise<void> {
    await this.runner.run(async (em) => {
      const [from, to] = await Promise.all([
        em.findOneByOrFail(Customer, { id: fromId }),
        em.findOneByOrFail(Customer, { id: toId }),
      ]);
      from.loyaltyPoints -= points;
      to.loyaltyPoints += points;
      await em.save([from, to]);
    });
  }

  /** Retries with a pause between attempts: the sleep happens inside the transaction. */
  async blockWithRetry(customerId: string): Promise<void> {
    await this.runner.run(async (em) => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const result = await em.update(Customer, { id: customerId, blocked: false }, { blocked: true });
        if (result.affected) return;
        await pause(50);
      }
    });
  }
}
