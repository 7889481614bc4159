from django.db import transaction

from .models import Order, OrderLine


@transaction.atomic
def place(customer_id, product_id, quantity):
    order = Order.objects.create(customer_id=customer_id, status="new")
    OrderLine.objects.create(order=order, product_id=product_id, quantity=quantity)
