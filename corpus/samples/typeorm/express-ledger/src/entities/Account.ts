import { Column, Entity, OneToMany, PrimaryGeneratedColumn, VersionColumn } from "typeorm";
import { LedgerEntry } from "./LedgerEntry";

@Entity({ name: "accounts" })
export class Account {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  /** Human-facing account number (IBAN-like): a unique business key. */
  @Column({ unique: true })
  number: string;

  @Column({ name: "owner_name" })
  ownerName: string;

  @Column("bigint")
  balance: number;

  @Column({ length: 3 })
  currency: string;

  @Column({ default: false })
  closed: boolean;

  @VersionColumn()
  version: number;

  @OneToMany(() => LedgerEntry, (e) => e.account)
  entries: LedgerEntry[];
}
