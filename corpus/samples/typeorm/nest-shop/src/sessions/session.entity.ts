import { Column, Entity, JoinTable, ManyToMany, ManyToOne } from "typeorm";
import { BaseEntity } from "@shop/common/base.entity";
import { Customer } from "@shop/customers/customer.entity";
import { Device } from "./device.entity";

/** A signed-in customer's session; `token` is what the client sends back. */
@Entity("sessions")
export class Session extends BaseEntity {
  @Column()
  token: string;

  @Column({ name: "expires_at" })
  expiresAt: Date;

  @Column({ default: false })
  verified: boolean;

  @ManyToOne(() => Customer)
  customer: Customer;

  @ManyToMany(() => Device, (device) => device.sessions)
  @JoinTable()
  devices: Device[];
}
