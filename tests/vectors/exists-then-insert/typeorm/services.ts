import { User, dataSource } from "./models";

export async function register(email: string, name: string): Promise<void> {
  await dataSource.transaction(async (em) => {
    const taken = await em.existsBy(User, { email });
    if (!taken) {
      await em.insert(User, { email, name });
    }
  });
}
