import { Column, Entity, PrimaryColumn } from "typeorm";

/** Business key as primary key: the coupon code. */
@Entity("coupons")
export class Coupon {
  @PrimaryColumn()
  code: string;

  @Column("int")
  usesLeft: number;

  @Column("numeric")
  discount: number;

  @Column({ type: "timestamptz" })
  expiresAt: Date;
}
