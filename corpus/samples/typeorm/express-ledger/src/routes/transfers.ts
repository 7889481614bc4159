import { Router, Request, Response } from "express";
import { AppDataSource } from "../data-source";
import { Account } from "../entities/Account";
import { Transfer } from "../entities/Transfer";
import { LedgerEntry } from "../entities/LedgerEntry";
import { withQueryRunner } from "../lib/tx";
import { countTransfer } from "../lib/metrics";

export const transfersRouter = Router();

/** Idempotent transfer between two accounts (QueryRunner with try/catch/finally). */
transfersRouter.post("/transfers", async (req: Request, res: Response) => {
  const { fromId, toId, amount, key } = req.body as { fromId: string; toId: string; amount: number; key: string };
  const runner = AppDataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction("SERIALIZABLE");
  try {
    const accounts = runner.manager.getRepository(Account);
    const existing = await runner.manager.findOneBy(Transfer, { idempotencyKey: key });
    if (existing) {
      await runner.commitTransaction();
      res.json(existing);
      return;
    }
    const from = await accounts.findOne({ where: { id: fromId }, lock: { mode: "pessimistic_write" } });
    const to = await accounts.findOne({ where: { id: toId }, lock: { mode: "pessimistic_write" } });
    if (!from || !to || from.balance < amount) {
      throw new Error("transfer refused");
    }
    from.balance -= amount;
    to.balance += amount;
    await runner.manager.save([from, to]);
    const transfer = await runner.manager.save(Transfer, { idempotencyKey: key, from, to, amount });
    await runner.manager
      .createQueryBuilder()
      .insert()
      .into(LedgerEntry)
      .values([
        { account: { id: fromId }, transfer: { id: transfer.id }, amount: -amount, kind: "debit" },
        { account: { id: toId }, transfer: { id: transfer.id }, amount, kind: "credit" },
      ])
      .execute();
    await runner.commitTransaction();
    countTransfer();
    res.status(201).json(transfer);
  } catch (err) {
    await runner.rollbackTransaction();
    res.status(409).json({ error: String(err) });
  } finally {
    await runner.release();
  }
});

/** Reverses a transfer through the QueryRunner wrapper. */
transfersRouter.post("/transfers/:id/reverse", async (req: Request, res: Response) => {
  const transferId = Number(req.params.id);
  await withQueryRunner(async (manager) => {
    const transfer = await manager.findOneOrFail(Transfer, { where: { id: transferId }, relations: { from: true, to: true } });
    await manager.insert(LedgerEntry, [
      { account: { id: transfer.from.id }, transfer: { id: transfer.id }, amount: transfer.amount, kind: "credit" },
      { account: { id: transfer.to.id }, transfer: { id: transfer.id }, amount: -transfer.amount, kind: "debit" },
    ]);
    await manager.update(Transfer, transferId, { status: "reversed" });
  });
  res.sendStatus(204);
});
