import { Column, Entity, JoinColumn, ManyToOne, OneToMany, OneToOne, Unique } from "typeorm";
import { BaseEntity } from "@shop/common/base.entity";
import { Customer } from "@shop/customers/customer.entity";
import { OrderLine } from "./order-line.entity";
import { Payment } from "@shop/payments/payment.entity";

export type OrderStatus = "pending" | "paid" | "shipped" | "cancelled";

@Entity("orders")
@Unique(["customer", "reference"])
export class Order extends BaseEntity {
  @Column()
  reference: string;

  @ManyToOne(() => Customer, (customer) => customer.orders)
  @JoinColumn({ name: "customer_id" })
  customer: Customer;

  @Column({ name: "customer_id" })
  customerId: string;

  @Column({ default: "pending" })
  status: OrderStatus;

  @Column("numeric", { default: 0 })
  total: number;

  @Column({ name: "coupon_code", nullable: true })
  couponCode: string | null;

  @OneToMany(() => OrderLine, (line) => line.order)
  lines: OrderLine[];

  /** lazy relation: `await order.payment` runs its own query */
  @OneToOne(() => Payment, (payment) => payment.order)
  payment: Promise<Payment>;
}
