from django.db import transaction

from .models import User


@transaction.atomic
def register(email, name):
    if not User.objects.filter(email=email).exists():
        User.objects.create(email=email, name=name)
