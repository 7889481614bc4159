import { User, dataSource } from "./models";

export async function deactivate(email: string): Promise<void> {
  await dataSource.transaction(async (em) => {
    await em.update(User, { email }, { active: false });
  });
}
