import { Body, Controller, Param, Post } from "@nestjs/common";
import { Ctx, RequestContext } from "@shop/common/request-context";
import { Transaction } from "@shop/common/transaction.decorator";
import { CartService } from "./cart.service";

@Controller("orders/:orderId")
export class CartController {
  constructor(private readonly cart: CartService) {}

  @Post("lines")
  @Transaction()
  async addLine(@Ctx() ctx: RequestContext, @Param("orderId") orderId: string, @Body() body: { productId: string; quantity: number }) {
    return this.cart.addLine(ctx, orderId, body.productId, body.quantity);
  }

  @Post("checkout")
  @Transaction("SERIALIZABLE")
  async checkout(@Ctx() ctx: RequestContext, @Param("orderId") orderId: string) {
    const previousOrders = await this.cart.checkout(ctx, orderId);
    return { previousOrders };
  }
}
