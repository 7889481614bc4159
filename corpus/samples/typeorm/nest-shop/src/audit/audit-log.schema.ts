import { EntitySchema } from "typeorm";

export interface AuditLog {
  id: number;
  actor: string;
  action: string;
  subject: string;
  at: Date;
}

/** Declared without decorators, as an EntitySchema. */
export const AuditLogSchema = new EntitySchema<AuditLog>({
  name: "AuditLog",
  tableName: "audit_log",
  columns: {
    id: { type: Number, primary: true, generated: true },
    actor: { type: String },
    action: { type: String },
    subject: { type: String },
    at: { type: "timestamptz", createDate: true },
  },
  indices: [{ columns: ["subject", "at"] }],
});
