"""Customer account maintenance."""
from django.db import connection, transaction

from shop.models import Address, CouponRedemption, Customer, Order


def merge_customers(keep_id, drop_id):
    """Fold a duplicate customer account into the one we keep."""
    with transaction.atomic():
        Order.objects.filter(customer_id=drop_id).update(customer_id=keep_id)
        Address.objects.filter(customer__id=drop_id).update(customer_id=keep_id, is_default=False)
        CouponRedemption.objects.filter(customer=drop_id).delete()
        Customer.objects.filter(pk=drop_id).delete()


@transaction.atomic
def award_loyalty_points(customer_id, order_id, points):
    with connection.cursor() as cursor:
        cursor.execute("UPDATE shop_customer SET loyalty_points = loyalty_points + %s WHERE id = %s", [points, customer_id])
    Order.objects.filter(pk=order_id).update(points_awarded=True)
