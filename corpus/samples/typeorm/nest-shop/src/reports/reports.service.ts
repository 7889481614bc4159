import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { InjectQueue } from "@nestjs/bull";
import { Queue } from "bull";
import { DataSource } from "typeorm";
import { Order } from "@shop/orders/order.entity";
import { Product } from "@shop/catalog/product.entity";

@Injectable()
export class ReportsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue("reports") private readonly queue: Queue,
  ) {}

  /** Raw SQL: an advisory lock (not understood: unknown) and a range aggregate. */
  async revenueSince(since: Date): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      await em.query("SELECT pg_advisory_xact_lock(42)");
      const rows = await em.query("SELECT SUM(total) AS revenue FROM orders WHERE created_at >= $1", [since]);
      return Number(rows[0].revenue);
    });
  }

  /** Marks the order exported and enqueues the export job inside the transaction. */
  async exportOrder(orderId: string): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.query("UPDATE orders SET status = 'exported' WHERE id = $1", [orderId]);
      await this.queue.add("export", { orderId });
    });
  }

  /** Customer report: every order of one customer (foreign key lookup). */
  async customerOrders(customerId: string): Promise<Order[]> {
    return this.dataSource.transaction("REPEATABLE READ", async (em) =>
      em.getRepository(Order).find({ where: { customerId }, order: { createdAt: "DESC" } }),
    );
  }

  /** Stock valuation: reads every product (a full scan). */
  async stockValuation(): Promise<number> {
    return this.dataSource.transaction("REPEATABLE READ", async (em) => {
      const products = await em.find(Product);
      return products.reduce((sum, p) => sum + p.price * p.stock, 0);
    });
  }

  /** Repository extended in place with a custom finder (TypeORM 0.3 `.extend`). */
  async openOrderCount(customerId: string): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const orders = em.getRepository(Order).extend({
        findOpen(id: string) {
          return this.findBy({ customerId: id, status: "pending" });
        },
      });
      const open = await orders.findOpen(customerId);
      return open.length;
    });
  }
}
