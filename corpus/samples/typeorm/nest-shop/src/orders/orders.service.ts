import { BadRequestException, ConflictException, Injectable, NotFoundException } from "@nestjs/common";
import { InjectDataSource, InjectRepository } from "@nestjs/typeorm";
import { DataSource, EntityManager, LessThan, Repository } from "typeorm";
import { Order } from "./order.entity";
import { OrderLine } from "./order-line.entity";
import { Product } from "@shop/catalog/product.entity";
import { Customer } from "@shop/customers/customer.entity";
import { PaymentsClient } from "@shop/payments/payments.client";
import { MailService } from "@shop/notifications/mail.service";
import { AuditService } from "@shop/audit/audit.service";
import { AuditLogSchema } from "@shop/audit/audit-log.schema";

export interface CartItem {
  productId: string;
  quantity: number;
}

@Injectable()
export class OrdersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @InjectRepository(Product) private readonly products: Repository<Product>,
    private readonly payments: PaymentsClient,
    private readonly mail: MailService,
    private readonly audit: AuditService,
  ) {}

  /** Checkout: locks each product, decrements stock, creates the order, charges the card. */
  async placeOrder(customerId: string, reference: string, items: CartItem[]): Promise<Order> {
    return this.dataSource.transaction(async (manager) => {
      const customer = await manager.findOneByOrFail(Customer, { id: customerId });
      if (customer.blocked) {
        throw new BadRequestException("customer blocked");
      }
      let total = 0;
      const lines: OrderLine[] = [];
      for (const item of items) {
        const product = await manager.findOne(Product, {
          where: { id: item.productId },
          lock: { mode: "pessimistic_write" },
        });
        if (!product || product.stock < item.quantity) {
          throw new ConflictException(`out of stock: ${item.productId}`);
        }
        product.stock -= item.quantity;
        await manager.save(product);
        total += product.price * item.quantity;
        lines.push(manager.create(OrderLine, { product, quantity: item.quantity, unitPrice: product.price }));
      }
      const order = manager.create(Order, { customer, reference, total, status: "pending" });
      await manager.save(order);
      for (const line of lines) {
        line.order = order;
      }
      await manager.save(lines);
      await this.payments.charge(reference, total);
      return order;
    });
  }

  /** Cancels a paid order and puts the stock back. */
  async cancelOrder(orderId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const order = await manager.findOneBy(Order, { id: orderId });
      if (!order) throw new NotFoundException();
      if (order.status !== "paid") {
        throw new BadRequestException("only paid orders can be cancelled");
      }
      await manager.update(Order, { id: orderId }, { status: "cancelled" });
      const lines = await manager.find(OrderLine, { where: { order: { id: orderId } }, relations: { product: true } });
      for (const line of lines) {
        await manager.increment(Product, { id: line.product.id }, "stock", line.quantity);
      }
    });
  }

  /** One-shot: two writes keyed by the order id. */
  async markShipped(orderId: string, actor: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.update(Order, orderId, { status: "shipped" });
      await this.audit.record(actor, "ship", orderId, manager);
    });
  }

  /** Range predicate: which rows match depends on the data. */
  async expireStale(before: Date): Promise<void> {
    await this.dataSource.manager.transaction(async (em) => {
      await em.update(Order, { status: "pending", createdAt: LessThan(before) }, { status: "cancelled" });
    });
  }

  /** The product counter goes through the injected repository: it escapes the transaction. */
  async recordView(productId: string, customerId: string): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await this.products.increment({ id: productId }, "stock", 0);
      await em.insert(AuditLogSchema, { actor: customerId, action: "view", subject: productId, at: new Date() });
    });
  }

  /** Confirmation mail sent inside the transaction (strictly interactive). */
  async confirm(orderId: string): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const order = await em.findOneOrFail(Order, { where: { id: orderId }, relations: ["customer"] });
      await em.update(Order, order.id, { status: "paid" });
      await this.mail.orderConfirmation(order.customer.email, order.reference);
    });
  }

  /** Lazy relation load: `await order.payment` queries payments by the order. */
  async paymentState(orderId: string): Promise<string> {
    return this.dataSource.transaction(async (em) => {
      const order = await em.findOneByOrFail(Order, { id: orderId });
      const payment = await order.payment;
      return payment.state;
    });
  }

  /** Deletes lines by id in parallel on the transaction's manager. */
  async removeLines(lineIds: number[]): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await Promise.all(lineIds.map((id) => em.delete(OrderLine, id)));
    });
  }

  /** forEach(async ...) is not awaited: the deletes may run after the commit. */
  async purgeCustomerOrders(customerId: string, orderIds: string[]): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      orderIds.forEach(async (id) => {
        await em.delete(Order, { id, customer: { id: customerId } });
      });
    });
  }

  /** Audit through the helper without a manager: runs on the global manager (escaped). */
  /** Read side, outside any transaction: each statement is its own (autocommit) transaction.
   *  The lines are selected by their order (not their key); the audit helper, called without a
   *  manager, writes through the global one. */
  async orderPage(orderId: string, actor: string): Promise<{ order: Order; lines: OrderLine[] }> {
    const order = await this.orders.findOneByOrFail({ id: orderId });
    const lines = await this.dataSource.manager.find(OrderLine, { where: { order: { id: order.id } } });
    await this.audit.record(actor, "view", orderId);
    return { order, lines };
  }

  async touch(orderId: string, actor: string, manager: EntityManager): Promise<void> {
    await manager.transaction(async (tx) => {
      await tx.update(Order, orderId, { updatedAt: new Date() });
      await this.audit.record(actor, "touch", orderId);
    });
  }
}
