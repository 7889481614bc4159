import { BaseEntity, Column, Entity, PrimaryGeneratedColumn, Unique } from "typeorm";

/** ActiveRecord style: extends TypeORM's own BaseEntity. */
@Entity("webhooks")
@Unique("uq_webhook_owner_event", ["owner", "event"])
export class Webhook extends BaseEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column()
  owner: string;

  @Column()
  event: string;

  @Column()
  url: string;
}
