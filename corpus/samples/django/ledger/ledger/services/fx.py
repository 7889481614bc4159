"""Exchange rates from the rates provider."""
from decimal import Decimal

import requests
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ledger.models import Currency, ExchangeRate


def refresh_rates(base="EUR"):
    today = timezone.localdate()
    with transaction.atomic():
        currencies = list(Currency.objects.all())
        response = requests.get(settings.FX_RATES_URL, params={"base": base}, timeout=10)
        response.raise_for_status()
        quotes = response.json()["rates"]
        for currency in currencies:
            if currency.code != base and currency.code in quotes:
                ExchangeRate.objects.update_or_create(base_id=base, quote_id=currency.code, as_of=today, defaults={"rate": Decimal(str(quotes[currency.code]))})
