// Plain JavaScript seeding script (not analysed by txscan: TypeScript only).
const { DataSource } = require("typeorm");

async function main() {
  const ds = new DataSource({ type: "postgres", url: process.env.DATABASE_URL });
  await ds.initialize();
  await ds.transaction(async (m) => {
    await m.query("INSERT INTO accounts (id, number, owner_name, balance, currency) VALUES ($1, $2, $3, 0, 'EUR')", ["a", "n", "o"]);
  });
}
main();
