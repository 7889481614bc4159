"""Coupon redemption."""
from django.db.models import F
from django.db.transaction import atomic

from shop.exceptions import CouponRejected
from shop.models import Coupon, CouponRedemption, Order


@atomic
def apply_coupon(order_id, customer_id, code):
    coupon = Coupon.objects.select_for_update().get(code=code)
    order = Order.objects.filter(customer_id=customer_id).exclude(status=Order.Status.CANCELLED).select_for_update().get(pk=order_id)
    if coupon.is_exhausted() or coupon.is_expired():
        raise CouponRejected(code)
    discount = coupon.discount_for(order.subtotal)
    CouponRedemption.objects.create(coupon=coupon, customer_id=customer_id, order=order, discount=discount)
    Coupon.objects.filter(code=code).update(times_used=F("times_used") + 1)
    Order.objects.filter(pk=order_id).update(coupon=coupon, discount=discount, total=F("subtotal") - discount)
    return discount
