import { Account, dataSource } from "./models";

export async function freeze(ownerId: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    const accounts = await em.find(Account, { where: { owner: { id: ownerId } } });
    for (const account of accounts) {
      account.frozen = true;
      await em.save(account);
    }
  });
}
