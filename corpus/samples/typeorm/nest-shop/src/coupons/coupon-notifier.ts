import axios from "axios";

/** Told when a coupon is retired; the implementation is chosen by configuration. */
export interface CouponNotifier {
  retired(code: string): Promise<void>;
}

/** Posts to the marketing service (the default in couponConfig). No `implements`: it is a
 *  CouponNotifier because the configuration puts it in that place. */
export class WebhookCouponNotifier {
  async retired(code: string): Promise<void> {
    await axios.post("https://marketing.example/coupons/retired", { code });
  }
}

/** Does nothing (tests, local runs). */
export class SilentCouponNotifier implements CouponNotifier {
  async retired(_code: string): Promise<void> {}
}

export interface CouponOptions {
  notifier: CouponNotifier;
}

export const couponConfig: CouponOptions = { notifier: new WebhookCouponNotifier() };
