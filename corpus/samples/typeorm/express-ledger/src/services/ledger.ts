import { EntityManager, In, MoreThan } from "typeorm";
import { AppDataSource, MAX_PAGE } from "../data-source";
import { Account } from "../entities/Account";
import { LedgerEntry } from "../entities/LedgerEntry";
import { beginTransaction } from "../lib/tx";

/** Helper shared by deposits and fees: one entry plus a balance increment, both by key. */
export async function postEntry(manager: EntityManager, accountId: string, amount: number, kind: LedgerEntry["kind"]): Promise<void> {
  await manager.insert(LedgerEntry, { account: { id: accountId }, amount, kind });
  await manager.increment(Account, { id: accountId }, "balance", amount);
}

export async function deposit(accountId: string, amount: number): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await postEntry(m, accountId, amount, "credit");
  });
}

/** Conditional debit in SQL; the entry is written only when the debit succeeded. */
export async function withdraw(accountId: string, amount: number): Promise<void> {
  await AppDataSource.transaction("SERIALIZABLE", async (m) => {
    const [, affected] = await m.query(
      "UPDATE accounts SET balance = balance - $1 WHERE id = $2 AND balance >= $1",
      [amount, accountId],
    );
    if (affected === 0) {
      throw new Error("insufficient funds");
    }
    await m.insert(LedgerEntry, { account: { id: accountId }, amount: -amount, kind: "debit" });
  });
}

/** Freezes accounts by their business numbers (IN list on a non-key attribute). */
export async function freezeAccounts(numbers: string[]): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await m.update(Account, { number: In(numbers) }, { closed: true });
  });
}

/** Keyset pagination over an account's entries. */
export async function reclassifyEntries(accountId: string): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    let cursor = 0;
    while (true) {
      const rows = await m.find(LedgerEntry, {
        where: { account: { id: accountId }, id: MoreThan(cursor) },
        order: { id: "ASC" },
        take: MAX_PAGE,
      });
      if (rows.length === 0) break;
      await m.update(LedgerEntry, rows.map((r) => r.id), { kind: "credit" });
      cursor = rows[rows.length - 1].id;
    }
  });
}

/** Bulk insert through a query builder (one statement). */
export async function recordBatch(entries: Array<{ accountId: string; amount: number }>): Promise<void> {
  await AppDataSource.transaction(async (m) => {
    await m
      .createQueryBuilder()
      .insert()
      .into(LedgerEntry)
      .values(entries.map((e) => ({ account: { id: e.accountId }, amount: e.amount, kind: "credit" as const })))
      .execute();
  });
}

/** Search by owner name pattern or exact number. */
export async function searchAccounts(term: string, number: string): Promise<Account[]> {
  return AppDataSource.transaction(async (m) =>
    m
      .getRepository(Account)
      .createQueryBuilder("a")
      .where("a.owner_name ILIKE :term OR a.number = :number", { term: `%${term}%`, number })
      .andWhere("a.closed = false")
      .getMany(),
  );
}

/** Moves an entry to another account, on a runner started by beginTransaction(). */
export async function moveEntry(entryId: number, toAccountId: string): Promise<void> {
  const runner = await beginTransaction();
  try {
    await runner.manager.update(LedgerEntry, entryId, { account: { id: toAccountId } });
    await runner.commitTransaction();
  } catch (err) {
    await runner.rollbackTransaction();
    throw err;
  } finally {
    await runner.release();
  }
}
