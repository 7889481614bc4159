import { Router, Request, Response } from "express";
import { Between } from "typeorm";
import { AppDataSource } from "../data-source";
import { Account } from "../entities/Account";
import { LedgerEntry } from "../entities/LedgerEntry";
import { deposit, withdraw } from "../services/ledger";

export const accountsRouter = Router();

accountsRouter.post("/accounts/:id/deposit", async (req: Request, res: Response) => {
  await deposit(req.params.id, Number(req.body.amount));
  res.sendStatus(204);
});

accountsRouter.post("/accounts/:id/withdraw", async (req: Request, res: Response) => {
  await withdraw(req.params.id, Number(req.body.amount));
  res.sendStatus(204);
});

/** Closes an account found by its number; rolls back early when it does not exist. */
accountsRouter.delete("/accounts/by-number/:number", async (req: Request, res: Response) => {
  const queryRunner = AppDataSource.createQueryRunner();
  await queryRunner.connect();
  await queryRunner.startTransaction();
  try {
    const account = await queryRunner.manager.findOneBy(Account, { number: req.params.number });
    if (!account) {
      await queryRunner.rollbackTransaction();
      res.sendStatus(404);
      return;
    }
    await queryRunner.manager.delete(LedgerEntry, { account: { id: account.id } });
    account.closed = true;
    await queryRunner.manager.save(account);
    await queryRunner.commitTransaction();
    res.sendStatus(204);
  } catch (err) {
    await queryRunner.rollbackTransaction();
    res.status(500).json({ error: String(err) });
  } finally {
    await queryRunner.release();
  }
});

/** Statement for a period: read-only, range predicates. */
export async function statementHandler(req: Request, res: Response): Promise<void> {
  const qr = AppDataSource.createQueryRunner();
  await qr.startTransaction("REPEATABLE READ");
  try {
    const where = { account: { id: req.params.id }, createdAt: Between(new Date(req.query.from as string), new Date(req.query.to as string)) };
    const entries = await qr.manager.find(LedgerEntry, { where, order: { createdAt: "ASC" } });
    const count = await qr.manager.count(LedgerEntry, { where: { account: { id: req.params.id } } });
    await qr.commitTransaction();
    res.json({ entries, count });
  } finally {
    await qr.release();
  }
}

accountsRouter.get("/accounts/:id/statement", statementHandler);

/** Balance page, outside any transaction: each statement runs in autocommit. */
accountsRouter.get("/accounts/:id", async (req: Request, res: Response) => {
  const account = await AppDataSource.getRepository(Account).findOneByOrFail({ id: req.params.id });
  const credits = await AppDataSource.getRepository(LedgerEntry)
    .createQueryBuilder("e")
    .where("e.accountId = :id", { id: account.id })
    .andWhere("e.amount > :min", { min: 0 })
    .getMany();
  res.json({ account, credits });
});
