import { Injectable, NotFoundException } from "@nestjs/common";
import { InjectDataSource, InjectEntityManager } from "@nestjs/typeorm";
import { Between, DataSource, EntityManager, ILike } from "typeorm";
import { Transactional, Propagation } from "typeorm-transactional";
import { Product } from "./product.entity";
import { Category } from "./category.entity";
import { ProductRepository } from "./product.repository";

export interface ProductRow {
  sku: string;
  name: string;
  price: number;
  stock: number;
}

@Injectable()
export class CatalogService {
  constructor(
    private readonly productRepo: ProductRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectEntityManager() private readonly manager: EntityManager,
  ) {}

  /** Bulk import keyed by SKU (a unique business key, not the primary key). */
  @Transactional()
  async importProducts(rows: ProductRow[]): Promise<void> {
    await this.productRepo.upsert(rows, ["sku"]);
  }

  /** typeorm-transactional: the injected custom repository joins the transaction. */
  @Transactional()
  async restockBySku(sku: string, quantity: number): Promise<void> {
    const product = await this.productRepo.findBySku(sku);
    if (!product) throw new NotFoundException(sku);
    await this.productRepo.increment({ id: product.id }, "stock", quantity);
  }

  /** A new transaction of its own even when called from one (REQUIRES_NEW). */
  @Transactional({ propagation: Propagation.REQUIRES_NEW })
  async searchByPrice(min: number, max: number, term: string): Promise<Product[]> {
    return this.productRepo.find({ where: { price: Between(min, max), name: ILike(`%${term}%`) } });
  }

  /** SUPPORTS joins a caller's transaction but never opens one: not a boundary. */
  @Transactional({ propagation: Propagation.SUPPORTS })
  async countActive(): Promise<number> {
    return this.productRepo.count({ where: { active: true } });
  }

  /** Hides a category subtree (TreeRepository, closure table). */
  async hideSubtree(categoryId: number): Promise<void> {
    await this.manager.transaction(async (em) => {
      const tree = em.getTreeRepository(Category);
      const root = await tree.findOneByOrFail({ id: categoryId });
      const descendants = await tree.findDescendants(root);
      await tree.update(descendants.map((c) => c.id), { visible: false });
    });
  }

  /** withRepository binds the custom repository to the transaction's manager. */
  async reserveStock(productId: string, quantity: number): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.withRepository(this.productRepo).reserve(productId, quantity);
    });
  }

  /** Reprices a whole category with a query builder update (one statement, by category). */
  async repriceCategory(categoryId: number, factor: number): Promise<void> {
    await this.dataSource.transaction("READ COMMITTED", async (em) => {
      await em
        .createQueryBuilder()
        .update(Product)
        .set({ price: () => "price * :factor" })
        .where("category_id = :categoryId", { categoryId })
        .setParameter("factor", factor)
        .execute();
    });
  }
}
