"""Turning a cart into an order."""
import logging
from datetime import timedelta
from decimal import Decimal

from django.db import transaction

from shop.helpers import generate_order_number, reserve_stock
from shop.models import Order, OrderLine, OutboxMessage, Product
from shop.tasks import send_order_confirmation

logger = logging.getLogger(__name__)

RESERVATION_TTL = timedelta(minutes=30)
DEFAULT_WAREHOUSE = "MAIN"


@transaction.atomic
def place_order(customer, items, shipping_address_id, warehouse_code=DEFAULT_WAREHOUSE):
    """Create an order from validated cart items: [{"product_id": 1, "quantity": 2}, ...]."""
    order = Order.objects.create(customer=customer, number=generate_order_number(), shipping_address_id=shipping_address_id, status=Order.Status.PENDING)
    subtotal = Decimal("0.00")
    for item in items:
        product = Product.objects.active().select_for_update().get(pk=item["product_id"])
        reserve_stock(order, product, warehouse_code, item["quantity"], RESERVATION_TTL)
        OrderLine.objects.create(order=order, product=product, quantity=item["quantity"], unit_price=product.price)
        subtotal += product.price * item["quantity"]
    order.subtotal = subtotal
    order.total = subtotal
    order.save(update_fields=["subtotal", "total", "updated"])
    OutboxMessage.objects.create(topic="order.placed", payload={"order_id": order.pk})
    transaction.on_commit(lambda: send_order_confirmation.delay(order.pk))
    logger.info("placed order %s with %d lines", order.number, len(items))
    return order
