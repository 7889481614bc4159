from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone
from model_utils.models import TimeStampedModel

from ledger.managers import AccountManager

ZERO = Decimal("0.00")


class Currency(models.Model):
    code = models.CharField(max_length=3, primary_key=True)
    name = models.CharField(max_length=40)
    decimals = models.PositiveSmallIntegerField(default=2)

    class Meta:
        verbose_name_plural = "currencies"


class Ledger(models.Model):
    name = models.CharField(max_length=100)
    slug = models.SlugField(unique=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="ledgers", on_delete=models.PROTECT)
    base_currency = models.ForeignKey(Currency, related_name="+", on_delete=models.PROTECT)


class Account(TimeStampedModel):
    class Kind(models.TextChoices):
        ASSET = "asset"
        LIABILITY = "liability"
        EQUITY = "equity"
        INCOME = "income"
        EXPENSE = "expense"

    number = models.CharField(max_length=34, unique=True)
    name = models.CharField(max_length=120, blank=True)
    ledger = models.ForeignKey(Ledger, related_name="accounts", on_delete=models.PROTECT)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="accounts", on_delete=models.PROTECT)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    currency = models.ForeignKey(Currency, on_delete=models.PROTECT)
    balance = models.DecimalField(max_digits=18, decimal_places=2, default=ZERO)
    overdraft_limit = models.DecimalField(max_digits=18, decimal_places=2, default=ZERO)
    interest_rate = models.DecimalField(max_digits=5, decimal_places=3, default=ZERO)
    last_interest_at = models.DateField(null=True, blank=True)
    is_frozen = models.BooleanField(default=False)
    statement_email = models.EmailField(blank=True)

    objects = AccountManager()

    def can_cover(self, amount):
        return not self.is_frozen and self.balance + self.overdraft_limit >= amount

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        AuditLog.objects.create(action="account.saved", object_type="account", object_id=str(self.pk), data={"balance": str(self.balance), "is_frozen": self.is_frozen})


class JournalEntry(TimeStampedModel):
    ledger = models.ForeignKey(Ledger, related_name="entries", on_delete=models.PROTECT)
    memo = models.CharField(max_length=255, blank=True)
    posted_at = models.DateTimeField(default=timezone.now)
    reversal_of = models.OneToOneField("self", null=True, blank=True, related_name="reversed_by", on_delete=models.PROTECT)
    idempotency_key = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        verbose_name_plural = "journal entries"


class Posting(models.Model):
    """One line of a journal entry; debits positive, credits negative."""

    entry = models.ForeignKey(JournalEntry, related_name="postings", on_delete=models.CASCADE)
    account = models.ForeignKey(Account, related_name="postings", on_delete=models.PROTECT)
    amount = models.DecimalField(max_digits=18, decimal_places=2)
    posted_on = models.DateField(default=timezone.localdate)


class Transfer(TimeStampedModel):
    class Status(models.TextChoices):
        COMPLETED = "completed"
        REVERSED = "reversed"

    reference = models.CharField(max_length=32, primary_key=True)
    source = models.ForeignKey(Account, related_name="outgoing_transfers", on_delete=models.PROTECT)
    destination = models.ForeignKey(Account, related_name="incoming_transfers", on_delete=models.PROTECT)
    amount = models.DecimalField(max_digits=18, decimal_places=2)
    status = models.CharField(max_length=10, choices=Status.choices)
    entry = models.OneToOneField(JournalEntry, null=True, related_name="transfer", on_delete=models.PROTECT)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="transfers", on_delete=models.PROTECT)


class Statement(models.Model):
    account = models.ForeignKey(Account, related_name="statements", on_delete=models.CASCADE)
    period_start = models.DateField()
    period_end = models.DateField()
    opening_balance = models.DecimalField(max_digits=18, decimal_places=2)
    closing_balance = models.DecimalField(max_digits=18, decimal_places=2)
    file_key = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        unique_together = [("account", "period_start")]

    def download_url(self):
        return f"/ledger/statements/{self.pk}/download/"


class InterestRun(models.Model):
    run_date = models.DateField(unique=True)
    accounts_processed = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)


class PeriodClose(models.Model):
    ledger = models.ForeignKey(Ledger, related_name="closes", on_delete=models.PROTECT)
    period_end = models.DateField()
    amount = models.DecimalField(max_digits=18, decimal_places=2)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    closed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ledger", "period_end"], name="one_close_per_period")]


class ExchangeRate(models.Model):
    base = models.ForeignKey(Currency, related_name="+", on_delete=models.CASCADE)
    quote = models.ForeignKey(Currency, related_name="+", on_delete=models.CASCADE)
    as_of = models.DateField()
    rate = models.DecimalField(max_digits=18, decimal_places=8)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["base", "quote", "as_of"], name="uniq_rate_per_day")]


class AuditLog(models.Model):
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    action = models.CharField(max_length=60)
    object_type = models.CharField(max_length=40, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    data = models.JSONField(default=dict)
