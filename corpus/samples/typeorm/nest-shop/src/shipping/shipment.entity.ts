import { Column, Entity, PrimaryColumn } from "typeorm";

/** One booking per order and carrier: the key is both columns. */
@Entity("shipments")
export class Shipment {
  @PrimaryColumn({ name: "order_id" })
  orderId: string;

  @PrimaryColumn()
  carrier: string;

  @Column()
  label: string;
}
