"""Transfers between accounts of the same currency."""
import logging

from django.db import transaction
from django.db.models import F

from ledger.exceptions import InsufficientFunds
from ledger.models import Account, JournalEntry, Posting, Transfer
from ledger.services.journal import post_entry
from ledger.tasks import notify_transfer
from ledger.utils import new_reference

logger = logging.getLogger(__name__)


@transaction.atomic
def transfer_funds(source_id, destination_id, amount, requested_by, memo=""):
    if amount <= 0:
        raise ValueError("transfer amount must be positive")
    locked = {account.pk: account for account in Account.objects.lock_pair(source_id, destination_id)}
    source, destination = locked[source_id], locked[destination_id]
    if source.can_cover(amount) and source.currency_id == destination.currency_id:
        entry = post_entry(source.ledger_id, [(source_id, -amount), (destination_id, amount)], memo or f"Transfer to {destination.number}", created_by=requested_by)
        transfer = Transfer.objects.create(reference=new_reference(), source_id=source_id, destination_id=destination_id, amount=amount, entry=entry, requested_by=requested_by, status=Transfer.Status.COMPLETED)
        transaction.on_commit(lambda: notify_transfer.delay(transfer.reference))
        logger.info("transfer %s: %s -> %s (%s)", transfer.reference, source_id, destination_id, amount)
        return transfer
    raise InsufficientFunds(source.number, amount)


def reverse_transfer(reference, actor):
    """Book the mirror image of a transfer's journal entry."""
    with transaction.atomic():
        transfer = Transfer.objects.select_for_update().get(reference=reference)
        original = transfer.entry
        reversal = JournalEntry.objects.create(ledger_id=original.ledger_id, memo=f"Reversal of {reference}", reversal_of=original, created_by=actor)
        for posting in original.postings.all():
            Posting.objects.create(entry=reversal, account_id=posting.account_id, amount=-posting.amount)
            Account.objects.filter(pk=posting.account_id).update(balance=F("balance") - posting.amount)
        Transfer.objects.filter(reference=reference).update(status=Transfer.Status.REVERSED)
        transfer.refresh_from_db(fields=["status"])
    return transfer
