"""Capturing, refunding and reconciling card payments."""
import logging

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F

from shop.helpers import traced_atomic
from shop.models import Order, Payment, WebhookEvent
from shop.payments import gateway

logger = logging.getLogger(__name__)

# Filled at import time by @on_event below (and by plugins that register their own kinds).
WEBHOOK_HANDLERS = {}


def on_event(kind):
    def register(func):
        WEBHOOK_HANDLERS[kind] = func
        return func

    return register


@transaction.atomic(using="default")
def capture_payment(order_id, card_token):
    order = Order.objects.select_for_update().get(pk=order_id)
    charge = gateway.charge_card(amount=order.total, currency="EUR", token=card_token, description=order.number)
    payment = Payment.objects.create(order=order, amount=order.total, currency="EUR", provider_ref=charge["id"], status=Payment.Status.CAPTURED)
    order.status = Order.Status.PAID
    order.save(update_fields=["status", "updated"])
    return payment


def refund_payment(payment_id, amount, reason=""):
    with traced_atomic("refund_payment"):
        payment = Payment.objects.select_for_update().get(pk=payment_id)
        response = httpx.post(f"{settings.PAYMENT_API}/refunds", json={"charge": payment.provider_ref, "amount": str(amount), "reason": reason}, timeout=10)
        response.raise_for_status()
        Payment.objects.filter(pk=payment_id).update(refunded_amount=F("refunded_amount") + amount, status=Payment.Status.REFUNDED)
        logger.info("refunded %s on payment %s", amount, payment_id)


@on_event("charge.dispute.created")
def _open_dispute(data):
    Payment.objects.filter(provider_ref=data["charge"]).update(status=Payment.Status.DISPUTED)


@on_event("charge.failed")
def _mark_failed(data):
    Payment.objects.filter(provider_ref=data["id"]).update(status=Payment.Status.FAILED)


@transaction.atomic
def handle_webhook(payload):
    """Store the raw event, then let the registered handler for its type act on it."""
    WebhookEvent.objects.create(provider_event_id=payload["id"], kind=payload["type"], body=payload)
    handler = WEBHOOK_HANDLERS.get(payload["type"])
    if handler is not None:
        handler(payload["data"]["object"])
