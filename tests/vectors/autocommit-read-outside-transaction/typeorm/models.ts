import { Column, DataSource, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Account {
  @PrimaryGeneratedColumn() id: number;
  @Column() owner: string;
  @Column("numeric") balance: number;
}

export const dataSource = new DataSource({ type: "postgres", entities: [Account] });
