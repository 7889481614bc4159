import { DataSource } from "typeorm";
import { Order } from "../order.entity";

/** Test helper under __tests__/: outside the default scope. */
export async function countOrders(dataSource: DataSource): Promise<number> {
  return dataSource.getRepository(Order).count();
}
