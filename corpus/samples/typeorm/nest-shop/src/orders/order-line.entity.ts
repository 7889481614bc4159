import { Column, Entity, ManyToOne, PrimaryGeneratedColumn } from "typeorm";
import { Order } from "./order.entity";
import { Product } from "@shop/catalog/product.entity";

@Entity("order_lines")
export class OrderLine {
  @PrimaryGeneratedColumn()
  id: number;

  @ManyToOne(() => Order, (order) => order.lines, { onDelete: "CASCADE" })
  order: Order;

  @ManyToOne(() => Product)
  product: Product;

  @Column("int")
  quantity: number;

  @Column("numeric")
  unitPrice: number;
}
