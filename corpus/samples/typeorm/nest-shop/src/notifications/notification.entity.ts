import { ChildEntity, Column, Entity, PrimaryGeneratedColumn, TableInheritance } from "typeorm";

/** Single-table inheritance: every kind of notification lives in `notifications`. */
@Entity("notifications")
@TableInheritance({ column: { type: "varchar", name: "kind" } })
export class Notification {
  @PrimaryGeneratedColumn()
  id: number;

  @Column()
  recipient: string;

  @Column({ default: false })
  sent: boolean;
}

@ChildEntity("email")
export class EmailNotification extends Notification {
  @Column()
  subject: string;
}
