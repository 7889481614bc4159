"""Stock keeping: receiving goods, cycle counts, write-offs."""
import logging

from django.core.mail import mail_admins
from django.db import connection
from django.db import transaction as tx
from django.db.models import F
from django.db.transaction import atomic as db_atomic

from shop.models import InventoryReservation, PurchaseOrder, StockLevel, StockMovement

logger = logging.getLogger(__name__)

LOW_STOCK_THRESHOLD = 5


@tx.atomic
def restock(product_id, warehouse_code, quantity, reason="restock"):
    StockLevel.objects.filter(product_id=product_id, warehouse_id=warehouse_code).update(quantity=F("quantity") + quantity)
    StockMovement.objects.create(product_id=product_id, warehouse_id=warehouse_code, delta=quantity, reason=reason)


def receive_purchase_order(po_id):
    with tx.atomic():
        po = PurchaseOrder.objects.select_for_update().get(pk=po_id)
        for line in po.lines.all():
            restock(line.product_id, po.warehouse_id, line.quantity, reason=f"PO {po.supplier_ref}")
        po.status = PurchaseOrder.Status.RECEIVED
        po.save(update_fields=["status", "updated"])
        logger.info("received purchase order %s", po.supplier_ref)


@db_atomic
def apply_stock_count(counts):
    """counts: {stock_level_id: counted quantity} from a cycle-count sheet."""
    levels = StockLevel.objects.in_bulk(list(counts))
    movements = []
    for level_id, level in levels.items():
        delta = counts[level_id] - level.quantity
        if delta:
            movements.append(StockMovement(product_id=level.product_id, warehouse_id=level.warehouse_id, delta=delta, reason="cycle count"))
        level.quantity = counts[level_id]
    StockLevel.objects.bulk_update(list(levels.values()), ["quantity"])
    StockMovement.objects.bulk_create(movements)


@tx.atomic
def write_off(product_id, warehouse_code, quantity, note):
    level = StockLevel.objects.select_for_update().get(product_id=product_id, warehouse_id=warehouse_code)
    level.quantity -= quantity
    level.save(update_fields=["quantity"])
    StockMovement.objects.create(product_id=product_id, warehouse_id=warehouse_code, delta=-quantity, reason=f"write-off: {note}")
    if level.quantity < LOW_STOCK_THRESHOLD:
        mail_admins(f"Low stock after write-off: product {product_id}", f"{level.quantity} left in {warehouse_code}")


@tx.atomic
def reset_reservations(warehouse_code):
    """Zero the reserved counters of a warehouse before a full re-count."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE shop_stocklevel SET reserved = 0 WHERE warehouse_id = %s", [warehouse_code])
    InventoryReservation.objects.filter(warehouse_id=warehouse_code, released=False).update(released=True)
