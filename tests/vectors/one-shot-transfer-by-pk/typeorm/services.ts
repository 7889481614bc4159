import { Account, dataSource } from "./models";

export async function transfer(fromId: number, toId: number, amount: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    await em.decrement(Account, { id: fromId }, "balance", amount);
    await em.increment(Account, { id: toId }, "balance", amount);
  });
}
