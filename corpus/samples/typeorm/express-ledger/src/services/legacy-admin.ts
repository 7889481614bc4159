import { getConnection, getManager, getRepository, LessThan } from "typeorm";
import { AuditEvent } from "../entities/AuditEvent";
import { Webhook } from "../entities/Webhook";

/** TypeORM 0.2 globals. The audit insert goes through a global repository: it escapes. */
export async function pruneAudit(cutoff: Date, actor: string): Promise<void> {
  await getManager().transaction(async (m) => {
    await m.delete(AuditEvent, { createdAt: LessThan(cutoff) });
    await getRepository(AuditEvent).insert({ actor, action: "prune" });
  });
}

/** ActiveRecord statics run on their own connection, outside this transaction. */
export async function registerWebhook(owner: string, event: string, url: string): Promise<void> {
  await getConnection().transaction(async (m) => {
    const existing = await Webhook.findOneBy({ owner, event });
    if (existing) return;
    await m.save(Webhook, { owner, event, url });
  });
}

/** Query-builder delete with a comparison in the condition string. */
export async function pruneAuditBuilder(cutoff: Date): Promise<void> {
  await getConnection().transaction(async (m) => {
    await m.createQueryBuilder().delete().from(AuditEvent).where("created_at < :cutoff", { cutoff }).execute();
  });
}
