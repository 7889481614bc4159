from django.db import transaction

from .models import Account


@transaction.atomic
def withdraw(account_id, amount):
    account = Account.objects.select_for_update().get(pk=account_id)
    account.balance -= amount
    account.save()
