import { MigrationInterface, QueryRunner } from "typeorm";

/** Schema migration: outside the default scope (never analysed, counted as a migration). */
export class CreateOrders1700000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    await queryRunner.query(`CREATE TABLE "orders" ("id" uuid PRIMARY KEY, "status" varchar NOT NULL)`);
    await queryRunner.commitTransaction();
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "orders"`);
  }
}
