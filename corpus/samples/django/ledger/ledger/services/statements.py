"""Monthly account statements, rendered to CSV and stored in S3."""
import csv
import io
from decimal import Decimal

import boto3
from django.conf import settings
from django.db import transaction
from django.db.models import Sum

from ledger.models import Account, Posting, Statement

s3 = boto3.client("s3")


def _render_csv(account, postings, opening, closing):
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["account", account.number, account.currency_id])
    writer.writerow(["opening", opening])
    for posting in postings:
        writer.writerow([posting.posted_on.isoformat(), posting.amount])
    writer.writerow(["closing", closing])
    return buf.getvalue()


@transaction.atomic
def generate_statement(account_id, period_start, period_end):
    account = Account.objects.get(pk=account_id)
    opening = Posting.objects.filter(account_id=account_id, posted_on__lt=period_start).aggregate(total=Sum("amount"))["total"] or Decimal("0.00")
    postings = [p for p in Posting.objects.raw("SELECT * FROM ledger_posting WHERE account_id = %s ORDER BY id", [account_id]) if period_start <= p.posted_on <= period_end]
    closing = opening + sum((p.amount for p in postings), Decimal("0.00"))
    key = f"statements/{account.number}/{period_start:%Y-%m}.csv"
    s3.put_object(Bucket=settings.STATEMENT_BUCKET, Key=key, Body=_render_csv(account, postings, opening, closing).encode("utf-8"))
    return Statement.objects.create(account_id=account_id, period_start=period_start, period_end=period_end, opening_balance=opening, closing_balance=closing, file_key=key)
