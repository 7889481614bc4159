"""Year-end / period-end closing of the nominal accounts into retained earnings."""
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from ledger.models import Account, PeriodClose

INCOME_PREFIX = "4"
EXPENSE_PREFIX = "5"


def close_period(ledger_id, period_end, actor):
    transaction.set_autocommit(False)
    try:
        retained = Account.objects.get(ledger_id=ledger_id, number=settings.RETAINED_EARNINGS_NUMBER)
        net = Decimal("0.00")
        nominal = Account.objects.filter(ledger_id=ledger_id).filter(Q(number__startswith=INCOME_PREFIX) | Q(number__startswith=EXPENSE_PREFIX)).exclude(balance=0)
        for account in nominal:
            net += account.balance
            Account.objects.filter(pk=account.pk).update(balance=Decimal("0.00"))
        Account.objects.filter(pk=retained.pk).update(balance=F("balance") + net)
        closing = PeriodClose(ledger_id=ledger_id, period_end=period_end, amount=net, closed_by=actor)
        closing.save()
        transaction.commit()
    except Exception:
        transaction.rollback()
        raise
    finally:
        transaction.set_autocommit(True)
