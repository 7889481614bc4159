"""Daily interest accrual."""
from django.conf import settings
from django.db.models import F

from ledger.models import Account, JournalEntry, Posting
from ledger.utils import atomic_retry, daily_interest


@atomic_retry(max_attempts=5)
def accrue_for_account(account_id, run_date):
    account = Account.objects.select_for_update().get(pk=account_id)
    if account.last_interest_at != run_date:
        interest = daily_interest(account.balance, account.interest_rate)
        entry = JournalEntry.objects.create(ledger_id=account.ledger_id, memo=f"Interest {run_date:%Y-%m-%d}")
        Posting.objects.bulk_create([Posting(entry=entry, account_id=account_id, amount=interest), Posting(entry=entry, account_id=settings.LEDGER_INTEREST_EXPENSE_ACCOUNT, amount=-interest)])
        Account.objects.filter(pk=account_id).update(balance=F("balance") + interest, last_interest_at=run_date)
        Account.objects.filter(pk=settings.LEDGER_INTEREST_EXPENSE_ACCOUNT).update(balance=F("balance") - interest)
