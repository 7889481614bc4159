import { AppDataSource } from "../data-source";
import { Account } from "../entities/Account";
import { LedgerEntry } from "../entities/LedgerEntry";

function interestFor(balance: number, rate: number): number {
  return Math.round(balance * rate);
}

/** Month-end job: reads every open account and credits interest row by row. */
export async function applyInterest(rate: number): Promise<number> {
  const runner = AppDataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction("REPEATABLE READ");
  try {
    const accounts = await runner.manager.find(Account, { where: { closed: false } });
    for (const account of accounts) {
      const credit = interestFor(account.balance, rate);
      if (credit <= 0) continue;
      await runner.manager.update(Account, account.id, { balance: account.balance + credit });
      await runner.manager.insert(LedgerEntry, { account: { id: account.id }, amount: credit, kind: "interest" });
    }
    await runner.commitTransaction();
    return accounts.length;
  } catch (err) {
    await runner.rollbackTransaction();
    throw err;
  } finally {
    await runner.release();
  }
}
