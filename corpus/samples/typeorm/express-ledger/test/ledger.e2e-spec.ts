import { AppDataSource } from "../src/data-source";
import { Account } from "../src/entities/Account";

/** End-to-end test: outside the default scope. */
export async function resetBalances(): Promise<void> {
  await AppDataSource.getRepository(Account).update({}, { balance: 0 });
}
