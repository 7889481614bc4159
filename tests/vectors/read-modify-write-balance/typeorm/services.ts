import { Account, dataSource } from "./models";

export async function withdraw(accountId: number, amount: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    const account = await em.findOneOrFail(Account, { where: { id: accountId }, lock: { mode: "pessimistic_write" } });
    account.balance -= amount;
    await em.save(account);
  });
}
