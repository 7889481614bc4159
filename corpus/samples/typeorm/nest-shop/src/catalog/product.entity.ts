import { Column, Entity, Index, JoinColumn, ManyToOne } from "typeorm";
import { BaseEntity } from "@shop/common/base.entity";
import { Category } from "./category.entity";

@Entity("products")
export class Product extends BaseEntity {
  @Index({ unique: true })
  @Column()
  sku: string;

  @Column()
  name: string;

  @Column("numeric")
  price: number;

  @Column("int")
  stock: number;

  @Column({ default: true })
  active: boolean;

  @ManyToOne(() => Category)
  @JoinColumn({ name: "category_id" })
  category: Category;
}
