from django.db import transaction

from .models import User


@transaction.atomic
def deactivate(email):
    User.objects.filter(email=email).update(active=False)
