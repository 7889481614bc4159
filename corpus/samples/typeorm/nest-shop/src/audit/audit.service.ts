import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, EntityManager } from "typeorm";
import { AuditLogSchema } from "./audit-log.schema";

@Injectable()
export class AuditService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes through the given manager, or (when none is given) through the global one. */
  async record(actor: string, action: string, subject: string, manager?: EntityManager): Promise<void> {
    const m = manager ?? this.dataSource.manager;
    await m.insert(AuditLogSchema, { actor, action, subject, at: new Date() });
  }
}
