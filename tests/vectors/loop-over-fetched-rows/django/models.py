from django.db import models


class Owner(models.Model):
    name = models.CharField(max_length=100)


class Account(models.Model):
    owner = models.ForeignKey(Owner, related_name="accounts", on_delete=models.CASCADE)
    balance = models.DecimalField(max_digits=12, decimal_places=2)
    frozen = models.BooleanField(default=False)
