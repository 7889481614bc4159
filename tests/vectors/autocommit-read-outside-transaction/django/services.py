from django.db import transaction
from django.db.models import F

from .models import Account


def balance(account_id):
    return Account.objects.get(pk=account_id).balance


@transaction.atomic
def deposit(account_id, amount):
    Account.objects.filter(pk=account_id).update(balance=F("balance") + amount)
