import { DataSource } from "typeorm";
import { Order } from "./order.entity";

/** A unit test: outside the default scope, its transaction and statements are not reported. */
export async function orderFixture(dataSource: DataSource): Promise<Order> {
  return dataSource.transaction(async (em) => em.save(Order, { reference: "T-1", status: "new" }));
}
