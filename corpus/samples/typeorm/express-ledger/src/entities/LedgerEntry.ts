import { Column, CreateDateColumn, Entity, Index, ManyToOne, PrimaryGeneratedColumn, RelationId } from "typeorm";
import { Account } from "./Account";
import { Transfer } from "./Transfer";

@Entity("ledger_entries")
@Index(["account", "createdAt"])
export class LedgerEntry {
  @PrimaryGeneratedColumn()
  id: number;

  @ManyToOne(() => Account, (a) => a.entries)
  account: Account;

  @RelationId((e: LedgerEntry) => e.account)
  accountId: string;

  @ManyToOne(() => Transfer, { nullable: true })
  transfer: Transfer | null;

  @Column("bigint")
  amount: number;

  @Column()
  kind: "debit" | "credit" | "interest" | "fee";

  @CreateDateColumn({ name: "created_at" })
  createdAt: Date;
}
