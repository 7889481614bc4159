"""Carrier integration: labels, pickups, shipped state."""
import base64
import logging

import boto3
import requests
from django.conf import settings
from django.db import transaction

from shop.exceptions import CarrierError
from shop.helpers import retrying_atomic
from shop.models import Order, Shipment
from shop.tasks import notify_carrier_pickup, notify_shipped

logger = logging.getLogger(__name__)
s3 = boto3.client("s3")


@retrying_atomic(retries=3)
def create_shipment(order_id, carrier="dhl"):
    order = Order.objects.select_for_update().get(pk=order_id)
    address = order.shipping_address
    resp = requests.post(settings.CARRIER_API[carrier], json={"reference": order.number, "name": address.line1, "city": address.city, "postcode": address.postcode, "country": address.country}, timeout=15)
    if resp.status_code != 201:
        raise CarrierError(resp.text)
    label = resp.json()
    key = f"labels/{order.number}.pdf"
    s3.put_object(Bucket=settings.LABEL_BUCKET, Key=key, Body=base64.b64decode(label["pdf"]), ContentType="application/pdf")
    Shipment.objects.create(order=order, carrier=carrier, tracking_number=label["tracking_number"], label_key=key)
    Order.objects.filter(pk=order_id).mark_shipped()
    logger.info("shipment for %s created with %s", order.number, carrier)


def mark_orders_shipped(order_ids, notify=True):
    """Bulk action from the warehouse dashboard."""
    with transaction.atomic():
        Order.objects.filter(pk__in=order_ids).mark_shipped()
        if notify:
            transaction.on_commit(lambda: notify_shipped.delay(list(order_ids)))


@transaction.atomic
def schedule_pickup(shipment_id, pickup_date):
    Shipment.objects.filter(pk=shipment_id).update(pickup_date=pickup_date)
    notify_carrier_pickup.apply_async(args=[shipment_id], countdown=60)
