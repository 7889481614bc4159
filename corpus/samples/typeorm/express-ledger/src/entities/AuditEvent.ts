import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("audit_events")
export class AuditEvent {
  @PrimaryGeneratedColumn()
  id: number;

  @Column()
  actor: string;

  @Column()
  action: string;

  @Column("jsonb", { nullable: true })
  payload: unknown;

  @CreateDateColumn({ name: "created_at" })
  createdAt: Date;
}
