import { Column, DataSource, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Order {
  @PrimaryGeneratedColumn() id: number;
  @Column() reference: string;
  @Column("numeric") total: number;
  @Column({ default: "new" }) status: string;
}

export const dataSource = new DataSource({ type: "postgres", entities: [Order] });
