"""Shared helpers: transaction wrappers, stock reservation, order numbers."""
import contextlib
import functools
import logging
import secrets
import time

from django.db import OperationalError, transaction
from django.db.models import F
from django.utils import timezone
from opentelemetry import trace

from shop.exceptions import OutOfStock
from shop.models import InventoryReservation, StockLevel

logger = logging.getLogger(__name__)
tracer = trace.get_tracer("shop.db")


@contextlib.contextmanager
def traced_atomic(name, using=None):
    """A transaction with its own tracing span, so slow transactions show up in APM."""
    with tracer.start_as_current_span(f"db.transaction.{name}") as span:
        span.set_attribute("db.using", using or "default")
        with transaction.atomic(using=using):
            yield span


def retrying_atomic(retries=3, backoff=0.05):
    """Run the decorated function in a transaction, retrying on serialization failures."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(1, retries + 1):
                try:
                    with transaction.atomic():
                        return func(*args, **kwargs)
                except OperationalError:
                    if attempt == retries:
                        raise
                    logger.warning("retrying %s after serialization failure (%d)", func.__name__, attempt)
                    time.sleep(backoff * attempt)

        return wrapper

    return decorator


def generate_order_number():
    return "SO-" + secrets.token_hex(4).upper()


def reserve_stock(order, product, warehouse_code, quantity, ttl):
    """Move `quantity` units of `product` from free to reserved stock for `order`."""
    updated = StockLevel.objects.filter(product=product, warehouse_id=warehouse_code, quantity__gte=quantity).update(quantity=F("quantity") - quantity, reserved=F("reserved") + quantity)
    if not updated:
        raise OutOfStock(product.sku)
    InventoryReservation.objects.create(order=order, product=product, warehouse_id=warehouse_code, quantity=quantity, expires_at=timezone.now() + ttl)


def release_stock(reservation):
    """Give the units of a reservation back to free stock."""
    StockLevel.objects.filter(product_id=reservation.product_id, warehouse_id=reservation.warehouse_id).update(quantity=F("quantity") + reservation.quantity, reserved=F("reserved") - reservation.quantity)
    reservation.released = True
    reservation.save(update_fields=["released"])
    logger.info("released reservation %s", reservation.pk)
