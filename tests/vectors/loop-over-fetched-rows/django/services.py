from django.db import transaction

from .models import Account


@transaction.atomic
def freeze(owner_id):
    for account in Account.objects.filter(owner_id=owner_id):
        account.frozen = True
        account.save()
