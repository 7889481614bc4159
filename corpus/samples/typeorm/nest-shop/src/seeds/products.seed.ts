import { DataSource } from "typeorm";
import { Product } from "@shop/catalog/product.entity";

/** Development data: outside the default scope (a seed). */
export async function seedProducts(dataSource: DataSource): Promise<void> {
  await dataSource.transaction(async (em) => {
    await em.insert(Product, { sku: "SKU-1", name: "Sample", price: 10, stock: 5 });
  });
}
