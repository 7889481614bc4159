"""Customer-facing e-mail."""
from django.conf import settings
from django.core.mail import EmailMessage, send_mail
from django.db import transaction
from django.utils import timezone

from shop.models import Order, StockAlert


@transaction.atomic
def send_order_confirmation_now(order_id):
    order = Order.objects.get(pk=order_id)
    customer = order.customer
    rows = [f"{line.quantity} x {line.product_id} @ {line.unit_price}" for line in order.lines.all()]
    message = EmailMessage(subject=f"Your order {order.number}", body="\n".join(rows), from_email=settings.DEFAULT_FROM_EMAIL, to=[customer.email])
    message.send()
    order.confirmation_sent_at = timezone.now()
    order.save(update_fields=["confirmation_sent_at", "updated"])


@transaction.atomic
def notify_back_in_stock(product_id):
    alerts = StockAlert.objects.filter(product_id=product_id, notified_at__isnull=True)
    for alert in alerts:
        send_mail("Back in stock", "The product you asked about is available again.", settings.DEFAULT_FROM_EMAIL, [alert.email])
    alerts.update(notified_at=timezone.now())
