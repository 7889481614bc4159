import { Column, Entity, ManyToMany } from "typeorm";
import { BaseEntity } from "@shop/common/base.entity";
import { Session } from "./session.entity";

/** A browser or phone a customer signs in from; sessions list the devices they were used on. */
@Entity("devices")
export class Device extends BaseEntity {
  @Column()
  label: string;

  @ManyToMany(() => Session, (session) => session.devices)
  sessions: Session[];
}
