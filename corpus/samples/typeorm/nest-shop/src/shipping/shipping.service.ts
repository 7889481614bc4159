import { Inject, Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";
import { Order } from "@shop/orders/order.entity";
import { Shipment } from "./shipment.entity";
import { Carrier, CARRIER } from "./carrier";

function timeout(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}

@Injectable()
export class ShippingService {
  constructor(@InjectDataSource() private dataSource: DataSource, @Inject(CARRIER) private carrier: Carrier) {}

  /** The carrier (injected by token) is called over HTTP inside the transaction. */
  async ship(orderId: string) {
    await this.dataSource.transaction(async (em) => {
      const order = await em.findOneByOrFail(Order, { id: orderId });
      const label = await this.carrier.book(order.id);
      await em.insert(Shipment, { orderId, carrier: this.carrier.name, label });
      await em.update(Order, { id: orderId }, { status: "shipped" });
    });
  }

  /** A timeout raced against a read bounds the wait; the transaction does not wait on a timer. */
  async relabel(orderId: string, carrier: string, label: string) {
    await this.dataSource.transaction(async (em) => {
      await Promise.race([em.findOneBy(Shipment, { orderId, carrier }), timeout(500)]);
      await em.update(Shipment, { orderId, carrier }, { label });
    });
  }

  /** Some of the key columns: not a key lookup. */
  async cancelShipments(orderId: string) {
    await this.dataSource.transaction(async (em) => {
      await em.delete(Shipment, { orderId });
    });
  }
}
