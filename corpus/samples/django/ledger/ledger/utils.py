"""Transaction wrappers and small money helpers."""
import functools
import logging
import secrets
import time
from contextlib import contextmanager
from decimal import ROUND_HALF_EVEN, Decimal

from django.db import OperationalError, transaction

from ledger.models import AuditLog

logger = logging.getLogger(__name__)
CENT = Decimal("0.01")


@contextmanager
def audited_atomic(actor, action, **details):
    """A transaction that records who did what once its body has run."""
    started = time.monotonic()
    with transaction.atomic():
        yield
        AuditLog.objects.create(actor=actor, action=action, data=details)
    logger.info("%s committed in %.1f ms", action, (time.monotonic() - started) * 1000)


def atomic_retry(max_attempts=5):
    """Decorator factory: run the function in a transaction, retry on serialization failure."""

    def decorator(func):
        @functools.wraps(func)
        def inner(*args, **kwargs):
            attempt = 0
            while True:
                attempt += 1
                try:
                    with transaction.atomic():
                        return func(*args, **kwargs)
                except OperationalError:
                    if attempt >= max_attempts:
                        raise
                    logger.info("retrying %s (attempt %d)", func.__qualname__, attempt)

        return inner

    return decorator


def daily_interest(balance, annual_rate):
    if balance <= 0:
        return Decimal("0.00")
    return (balance * annual_rate / Decimal(100) / Decimal(365)).quantize(CENT, rounding=ROUND_HALF_EVEN)


def new_reference():
    return "TRF-" + secrets.token_hex(6).upper()
