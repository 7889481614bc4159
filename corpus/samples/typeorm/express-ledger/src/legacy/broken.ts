// Half-migrated file kept in the tree: it does not parse.
import { AppDataSource } from "../data-source";

export async function legacyRebalance(ids: string[] {
  await AppDataSource.transaction(async (m) => {
    for (const id of ids) await m.increment("Account", { id }, "balance", 1);
  });
}
