import { Injectable } from "@nestjs/common";
import { RequestContext } from "@shop/common/request-context";
import { TransactionalConnection } from "@shop/common/transactional-connection";
import { Product } from "@shop/catalog/product.entity";
import { Order } from "@shop/orders/order.entity";
import { OrderLine } from "@shop/orders/order-line.entity";

/** Cart operations; the caller's @Transaction() reaches them only through `ctx`. */
@Injectable()
export class CartService {
  constructor(private readonly connection: TransactionalConnection) {}

  async addLine(ctx: RequestContext, orderId: string, productId: string, quantity: number): Promise<Order> {
    const order = await this.connection.getRepository(ctx, Order).findOneByOrFail({ id: orderId });
    const product = await this.connection.getRepository(ctx, Product).findOneByOrFail({ id: productId });
    const lines = this.connection.getRepository(ctx, OrderLine);
    await lines.insert({ order, product, quantity, unitPrice: product.price });
    await this.connection.getRepository(ctx, Order).update({ id: order.id }, { total: order.total + product.price * quantity });
    return order;
  }

  async checkout(ctx: RequestContext, orderId: string): Promise<number> {
    const order = await this.connection.getEntityOrThrow(ctx, Order, orderId);
    order.status = "paid";
    await this.connection.getRepository(ctx, Order).save(order);
    // no context: the plain data source, outside the request's transaction
    return this.connection.getRepository(Order).countBy({ customerId: order.customerId });
  }
}
