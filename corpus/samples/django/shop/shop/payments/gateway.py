"""Thin wrapper around the Stripe SDK."""
import logging
import time
from decimal import Decimal

import stripe
from django.conf import settings

logger = logging.getLogger(__name__)
stripe.api_key = settings.STRIPE_SECRET_KEY


def _to_minor_units(amount):
    return int((Decimal(amount) * 100).to_integral_value())


def charge_card(amount, currency, token, description):
    charge = stripe.Charge.create(amount=_to_minor_units(amount), currency=currency.lower(), source=token, description=description)
    return _wait_until_settled(charge)


def _wait_until_settled(charge, attempts=5):
    """Some card networks answer `pending` first; poll briefly for the final state."""
    while charge["status"] == "pending" and attempts:
        time.sleep(0.5)
        charge = stripe.Charge.retrieve(charge["id"])
        attempts -= 1
    logger.info("charge %s settled as %s", charge["id"], charge["status"])
    return charge
