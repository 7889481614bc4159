import { Column, Entity, OneToMany } from "typeorm";
import { BaseEntity } from "@shop/common/base.entity";
import { Order } from "@shop/orders/order.entity";

@Entity("customers")
export class Customer extends BaseEntity {
  @Column({ unique: true })
  email: string;

  @Column()
  name: string;

  @Column({ name: "loyalty_points", default: 0 })
  loyaltyPoints: number;

  @Column({ default: false })
  blocked: boolean;

  @OneToMany(() => Order, (order) => order.customer)
  orders: Order[];
}
