import { Column, DataSource, Entity, ManyToOne, OneToMany, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Customer {
  @PrimaryGeneratedColumn() id: number;
  @Column() name: string;
}

@Entity()
export class Product {
  @PrimaryGeneratedColumn() id: number;
  @Column({ unique: true }) sku: string;
}

@Entity()
export class Order {
  @PrimaryGeneratedColumn() id: number;
  @ManyToOne(() => Customer) customer: Customer;
  @Column({ default: "new" }) status: string;
  @OneToMany(() => OrderLine, (l) => l.order) lines: OrderLine[];
}

@Entity()
export class OrderLine {
  @PrimaryGeneratedColumn() id: number;
  @ManyToOne(() => Order, (o) => o.lines, { onDelete: "CASCADE" }) order: Order;
  @ManyToOne(() => Product) product: Product;
  @Column("int") quantity: number;
}

export const dataSource = new DataSource({ type: "postgres", entities: [Customer, Product, Order, OrderLine] });
