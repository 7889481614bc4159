import { Injectable } from "@nestjs/common";
import { EntityManager, Repository, Transaction, TransactionManager, TransactionRepository } from "typeorm";
import { Payment } from "./payment.entity";
import { Order } from "@shop/orders/order.entity";
import { PaymentsClient } from "./payments.client";

/** Written against TypeORM 0.2's decorator transactions (still found in older services). */
@Injectable()
export class PaymentsService {
  constructor(private readonly client: PaymentsClient) {}

  @Transaction()
  async recordPayment(
    @TransactionManager() manager: EntityManager,
    @TransactionRepository(Payment) payments: Repository<Payment>,
    orderId: string,
    amount: number,
    providerRef: string,
  ): Promise<void> {
    await payments.insert({ order: { id: orderId }, amount, providerRef });
    await manager.update(Order, orderId, { status: "paid" });
  }

  @Transaction({ isolation: "SERIALIZABLE" })
  async refund(@TransactionManager() manager: EntityManager, paymentId: number): Promise<void> {
    const payment = await manager.findOneOrFail(Payment, { where: { id: paymentId }, relations: ["order"] });
    await this.client.refund(payment.providerRef);
    payment.state = "refunded";
    await manager.save(payment);
  }
}
