import { Account, dataSource } from "./models";

export async function balance(accountId: number): Promise<number | undefined> {
  const account = await dataSource.getRepository(Account).findOneBy({ id: accountId });
  return account?.balance;
}

export async function deposit(accountId: number, amount: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    await em.increment(Account, { id: accountId }, "balance", amount);
  });
}
