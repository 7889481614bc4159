import { Order, OrderLine, dataSource } from "./models";

export async function place(customerId: number, productId: number, quantity: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    const order = await em.save(em.create(Order, { customer: { id: customerId }, status: "new" }));
    await em.insert(OrderLine, { order: { id: order.id }, product: { id: productId }, quantity });
  });
}
