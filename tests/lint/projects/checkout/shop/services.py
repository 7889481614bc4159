from django.db import IntegrityError, transaction

from shop.models import Account, Order
from shop.payments import charge
from shop.tasks import send_receipt


@transaction.atomic
def checkout(order_id, amount):
    order = Order.objects.get(pk=order_id)
    order.total = order.total + amount
    order.save()
    charge(order_id, amount)
    send_receipt.delay(order_id)


def open_account(email):
    with transaction.atomic():
        try:
            Account.objects.create(email=email)
        except IntegrityError:
            pass
        Order.objects.create(account_id=1, status="welcome")


def clean(order_id):
    Order.objects.filter(pk=order_id).update(status="clean")
