from django.db import transaction
from django.db.models import F

from .models import Account


@transaction.atomic
def transfer(from_id, to_id, amount):
    Account.objects.filter(pk=from_id).update(balance=F("balance") - amount)
    Account.objects.filter(pk=to_id).update(balance=F("balance") + amount)
