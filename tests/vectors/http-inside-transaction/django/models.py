from django.db import models


class Order(models.Model):
    reference = models.CharField(max_length=40)
    total = models.DecimalField(max_digits=12, decimal_places=2)
    status = models.CharField(max_length=20, default="new")
