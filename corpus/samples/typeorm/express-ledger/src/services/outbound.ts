import { promises as fs } from "fs";
import { execFile } from "child_process";
import { promisify } from "util";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { AppDataSource } from "../data-source";
import { Account } from "../entities/Account";
import { AuditEvent } from "../entities/AuditEvent";
import { LedgerEntry } from "../entities/LedgerEntry";
import { Webhook } from "../entities/Webhook";
import { amqpChannel, producer, redis, s3 } from "../lib/clients";

const run = promisify(execFile);

/** Calls every webhook of the owner while the transaction is open. */
export async function notifyOwner(owner: string, event: string): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    const hooks = await m.find(Webhook, { where: { owner, event } });
    for (const hook of hooks) {
      await fetch(hook.url, { method: "POST", body: JSON.stringify({ event }) });
    }
    await m.insert(AuditEvent, { actor: owner, action: `notify:${event}` });
  });
}

/** Writes an audit line to a local file inside the transaction. */
export async function closeWithAuditFile(accountId: string, actor: string): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await m.update(Account, accountId, { closed: true });
    await fs.appendFile("/var/log/ledger/audit.log", `${actor} closed ${accountId}\n`);
  });
}

/** Exports a statement to object storage before committing the export marker. */
export async function exportStatement(accountId: string): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    const entries = await m.find(LedgerEntry, { where: { account: { id: accountId } } });
    await s3.send(new PutObjectCommand({ Bucket: "statements", Key: `${accountId}.json`, Body: JSON.stringify(entries) }));
    await m.insert(AuditEvent, { actor: "system", action: "export", payload: { accountId } });
  });
}

/** Takes a Redis lock while the database transaction is open. */
export async function lockedAdjust(accountId: string, delta: number): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await redis.set(`lock:${accountId}`, "1", "PX", 5000, "NX");
    await m.increment(Account, { id: accountId }, "balance", delta);
  });
}

/** Publishes the posting to Kafka and RabbitMQ before commit. */
export async function publishPosting(accountId: string, amount: number): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await m.insert(LedgerEntry, { account: { id: accountId }, amount, kind: "fee" });
    await producer.send({ topic: "postings", messages: [{ key: accountId, value: String(amount) }] });
    const channel = await amqpChannel();
    channel.sendToQueue("postings", Buffer.from(String(amount)));
  });
}

/** Signs the statement with gpg (a subprocess) inside the transaction. */
export async function signStatement(accountId: string): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    const account = await m.findOneByOrFail(Account, { id: accountId });
    await run("gpg", ["--sign", `/tmp/${account.number}.pdf`]);
  });
}
