"""Celery tasks."""
import logging

import redis
from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from .helpers import release_stock
from .models import InventoryReservation, Order, Product, Shipment

logger = logging.getLogger(__name__)
redis_client = redis.Redis.from_url(settings.REDIS_URL)


@shared_task
def send_order_confirmation(order_id):
    from shop.services.notifications import send_order_confirmation_now

    send_order_confirmation_now(order_id)


@shared_task
def notify_shipped(order_ids):
    for order in Order.objects.filter(pk__in=order_ids):
        send_mail(f"Order {order.number} shipped", "It is on its way.", settings.DEFAULT_FROM_EMAIL, [order.customer.email])


@shared_task
def notify_carrier_pickup(shipment_id):
    shipment = Shipment.objects.get(pk=shipment_id)
    logger.info("pickup for %s on %s", shipment.tracking_number, shipment.pickup_date)


@shared_task
def process_return(return_request_id):
    logger.info("processing return %s", return_request_id)


@shared_task
def release_expired_reservations():
    now = timezone.now()
    with transaction.atomic():
        expired = InventoryReservation.objects.select_for_update(skip_locked=True).filter(released=False, expires_at__lt=now)
        for reservation in expired:
            release_stock(reservation)
        logger.info("released expired reservations up to %s", now)


@shared_task
def publish_price_list():
    """Push the current price list to the cache used by the storefront edge."""
    with transaction.atomic():
        rows = list(Product.objects.values("sku", "price", "is_active"))
        for row in rows:
            if row["is_active"]:
                cache.set(f"price:{row['sku']}", str(row["price"]), timeout=3600)
        redis_client.set("price-list:generated-at", timezone.now().isoformat())
