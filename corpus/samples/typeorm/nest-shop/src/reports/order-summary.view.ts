import { ViewColumn, ViewEntity } from "typeorm";

/** Read-only view over orders. */
@ViewEntity({
  name: "order_summaries",
  expression: "SELECT customer_id, COUNT(*) AS orders, SUM(total) AS revenue FROM orders GROUP BY customer_id",
})
export class OrderSummary {
  @ViewColumn({ name: "customer_id" })
  customerId: string;

  @ViewColumn()
  orders: number;

  @ViewColumn()
  revenue: number;
}
