import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from "typeorm";
import { Account } from "./Account";

@Entity("transfers")
export class Transfer {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: "idempotency_key", unique: true })
  idempotencyKey: string;

  @ManyToOne(() => Account)
  @JoinColumn({ name: "from_account_id" })
  from: Account;

  @ManyToOne(() => Account)
  @JoinColumn({ name: "to_account_id" })
  to: Account;

  @Column("bigint")
  amount: number;

  @Column({ default: "posted" })
  status: string;

  @CreateDateColumn()
  createdAt: Date;
}
