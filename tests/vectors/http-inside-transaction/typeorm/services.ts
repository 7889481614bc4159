import { Order, dataSource } from "./models";

export async function pay(orderId: number): Promise<void> {
  await dataSource.transaction(async (em) => {
    const order = await em.findOneByOrFail(Order, { id: orderId });
    await fetch("https://payments.example.com/charge", {
      method: "POST",
      body: JSON.stringify({ order: order.id, amount: String(order.total) }),
    });
    order.status = "paid";
    await em.save(order);
  });
}
