import { Column, DataSource, Entity, ManyToOne, OneToMany, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Owner {
  @PrimaryGeneratedColumn() id: number;
  @Column() name: string;
  @OneToMany(() => Account, (a) => a.owner) accounts: Account[];
}

@Entity()
export class Account {
  @PrimaryGeneratedColumn() id: number;
  @ManyToOne(() => Owner, (o) => o.accounts, { onDelete: "CASCADE" }) owner: Owner;
  @Column("numeric") balance: number;
  @Column({ default: false }) frozen: boolean;
}

export const dataSource = new DataSource({ type: "postgres", entities: [Owner, Account] });
