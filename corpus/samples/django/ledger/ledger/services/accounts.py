"""Account lifecycle: opening, deposits, fees, freezing."""
import logging
from decimal import Decimal

from django.db import connection, transaction
from django.db import transaction as tx
from django.db.transaction import atomic

from ledger.models import Account, AuditLog
from ledger.utils import audited_atomic

logger = logging.getLogger(__name__)


def open_account(ledger_id, owner, kind, currency_code, number, name=""):
    with audited_atomic(owner, "account.open", number=number, ledger_id=ledger_id):
        account = Account.objects.create(ledger_id=ledger_id, owner=owner, kind=kind, currency_id=currency_code, number=number, name=name)
    return account


@transaction.atomic
def deposit(account_id, amount, actor=None):
    account = Account.objects.select_for_update().get(pk=account_id)
    account.balance += amount
    account.save(update_fields=["balance", "modified"])
    logger.info("deposit of %s on %s by %s", amount, account.number, actor)
    return account


@atomic
def charge_monthly_fee(account_id, fee_table):
    account = Account.objects.select_for_update().get(pk=account_id)
    fee = fee_table.get(account.kind, Decimal("0.00"))
    Account.objects.filter(pk=account_id).update(balance=account.balance - fee)
    return fee


@tx.atomic
def freeze_account(account_id, actor, reason):
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET is_frozen = TRUE WHERE id = %s", [account_id])
    AuditLog.objects.create(actor=actor, action="account.frozen", object_type="account", object_id=str(account_id), data={"reason": reason})
