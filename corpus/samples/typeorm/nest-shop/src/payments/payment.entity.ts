import { Column, Entity, JoinColumn, OneToOne, PrimaryGeneratedColumn } from "typeorm";
import { Order } from "@shop/orders/order.entity";

@Entity("payments")
export class Payment {
  @PrimaryGeneratedColumn()
  id: number;

  @OneToOne(() => Order, (order) => order.payment)
  @JoinColumn({ name: "order_id" })
  order: Order;

  @Column("numeric")
  amount: number;

  @Column({ name: "provider_ref", unique: true })
  providerRef: string;

  @Column({ default: "captured" })
  state: string;
}
