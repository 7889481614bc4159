import { MigrationInterface, QueryRunner } from "typeorm";

/** A migration kept beside the entities: skipped because it implements MigrationInterface. */
export class ProductSkuIndex1700000000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE UNIQUE INDEX "product_sku" ON "product" ("sku")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "product_sku"`);
  }
}
