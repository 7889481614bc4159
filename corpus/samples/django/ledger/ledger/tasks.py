"""Periodic jobs (celery beat)."""
import logging
from datetime import date

from celery import shared_task
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ledger.models import Account, InterestRun, Transfer

logger = logging.getLogger(__name__)


@shared_task
def notify_transfer(reference):
    transfer = Transfer.objects.get(reference=reference)
    email = Account.objects.filter(pk=transfer.destination_id).values_list("statement_email", flat=True).first()
    if email:
        send_mail("Incoming transfer", f"You received {transfer.amount}.", None, [email])


@shared_task
def accrue_daily_interest(run_date=None):
    from ledger.services.interest import accrue_for_account

    run_date = date.fromisoformat(run_date) if run_date else timezone.localdate()
    account_ids = list(Account.objects.open().filter(interest_rate__gt=0).values_list("pk", flat=True))
    for account_id in account_ids:
        accrue_for_account(account_id, run_date)
    with transaction.atomic():
        InterestRun.objects.update_or_create(run_date=run_date, defaults={"accounts_processed": len(account_ids), "finished_at": timezone.now()})
    logger.info("interest accrued for %d accounts", len(account_ids))


@shared_task
def flag_overdrawn_accounts():
    with transaction.atomic():
        Account.objects.filter(is_frozen=False, balance__lt=-F("overdraft_limit")).update(is_frozen=True)


@shared_task
def refresh_exchange_rates():
    from ledger.services.fx import refresh_rates

    refresh_rates()
