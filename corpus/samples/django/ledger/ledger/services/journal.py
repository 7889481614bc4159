"""Double-entry bookkeeping primitives."""
from django.db import transaction
from django.db.models import F

from ledger.exceptions import UnbalancedEntry
from ledger.models import Account, JournalEntry, Posting


def _apply(account_id, amount):
    Account.objects.filter(pk=account_id).update(balance=F("balance") + amount)


@transaction.atomic
def post_entry(ledger_id, lines, memo, created_by=None, idempotency_key=None):
    """Record a balanced entry and apply it to the balances.

    lines: [(account_id, signed amount), ...]; the amounts must sum to zero.
    """
    if sum(amount for _, amount in lines) != 0:
        raise UnbalancedEntry(lines)
    entry = JournalEntry.objects.create(ledger_id=ledger_id, memo=memo, created_by=created_by, idempotency_key=idempotency_key)
    Posting.objects.bulk_create([Posting(entry=entry, account_id=account_id, amount=amount) for account_id, amount in lines])
    for account_id, amount in lines:
        _apply(account_id, amount)
    return entry
