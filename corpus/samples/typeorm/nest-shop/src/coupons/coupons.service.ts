import { BadRequestException, Inject, Injectable } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import { CACHE_MANAGER } from "@nestjs/cache-manager";
import { Cache } from "cache-manager";
import { LessThan, Repository } from "typeorm";
import { Propagation, Transactional, runInTransaction } from "typeorm-transactional";
import { Coupon } from "./coupon.entity";
import { Order } from "@shop/orders/order.entity";
import { couponConfig, CouponNotifier } from "./coupon-notifier";

@Injectable()
export class CouponsService {
  constructor(
    @InjectRepository(Coupon) private readonly coupons: Repository<Coupon>,
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
  ) {}

  /** Locks the coupon by its code (the primary key), checks it, uses it. */
  @Transactional()
  async redeem(code: string, orderId: string): Promise<void> {
    const coupon = await this.coupons.findOne({ where: { code }, lock: { mode: "pessimistic_write" } });
    if (!coupon || coupon.usesLeft <= 0) {
      throw new BadRequestException("coupon not valid");
    }
    coupon.usesLeft -= 1;
    await this.coupons.save(coupon);
    await this.orders.update(orderId, { couponCode: code });
  }

  /** Functional form of typeorm-transactional. */
  async issue(codes: string[], discount: number, expiresAt: Date): Promise<void> {
    await runInTransaction(async () => {
      await this.coupons.insert(codes.map((code) => ({ code, usesLeft: 1, discount, expiresAt })));
    });
  }

  /** Cache invalidation inside the transaction. */
  @Transactional({ propagation: Propagation.REQUIRED })
  async purgeExpired(now: Date): Promise<void> {
    await this.coupons.delete({ expiresAt: LessThan(now) });
    await this.cache.del("coupons:active");
  }

  /** Find-or-fail, remove the loaded coupon, tell the configured notifier (an interface:
   *  every implementation the application has is a candidate). */
  @Transactional()
  async retire(code: string): Promise<void> {
    const coupon = await this.coupons.findOneByOrFail({ code });
    await this.coupons.remove(coupon);
    await this.notifier.retired(code);
  }

  private readonly notifier: CouponNotifier = couponConfig.notifier;

  /** NEVER: must run outside transactions; not a boundary. */
  @Transactional({ propagation: Propagation.NEVER })
  async peek(code: string): Promise<Coupon | null> {
    return this.coupons.findOneBy({ code });
  }
}
