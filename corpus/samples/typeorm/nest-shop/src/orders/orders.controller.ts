import { Controller, Get, Param, Query } from "@nestjs/common";
import { OrdersService } from "./orders.service";
import { CatalogService } from "@shop/catalog/catalog.service";

/** HTTP entry points. Nothing here opens a transaction: what the services do outside their own
 *  transactions runs in autocommit. */
@Controller("orders")
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly catalog: CatalogService,
  ) {}

  @Get(":id")
  page(@Param("id") id: string, @Query("actor") actor: string) {
    return this.orders.orderPage(id, actor);
  }

  /** @Transactional(SUPPORTS) opens no transaction: called from here, its read is autocommit. */
  @Get("products/active")
  activeProducts() {
    return this.catalog.countActive();
  }
}
