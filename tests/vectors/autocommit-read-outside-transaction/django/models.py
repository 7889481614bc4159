from django.db import models


class Account(models.Model):
    owner = models.CharField(max_length=100)
    balance = models.DecimalField(max_digits=12, decimal_places=2)
