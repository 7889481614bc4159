import { Injectable } from "@nestjs/common";
import { DataSource, Repository } from "typeorm";
import { Product } from "./product.entity";

/** Custom repository (TypeORM 0.3 style: a provider extending Repository<Product>). */
@Injectable()
export class ProductRepository extends Repository<Product> {
  constructor(dataSource: DataSource) {
    super(Product, dataSource.createEntityManager());
  }

  findBySku(sku: string): Promise<Product | null> {
    return this.findOne({ where: { sku } });
  }

  async reserve(productId: string, quantity: number): Promise<void> {
    await this.createQueryBuilder()
      .update(Product)
      .set({ stock: () => "stock - :qty" })
      .where("id = :id AND stock >= :qty", { id: productId, qty: quantity })
      .execute();
  }
}
