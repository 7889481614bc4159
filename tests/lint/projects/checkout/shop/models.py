from django.db import models


class Account(models.Model):
    email = models.EmailField()
    balance = models.IntegerField(default=0)
    closed = models.BooleanField(default=False)


class Order(models.Model):
    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    status = models.CharField(max_length=20)
    total = models.IntegerField(default=0)
