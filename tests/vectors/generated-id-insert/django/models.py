from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=100)


class Product(models.Model):
    sku = models.CharField(max_length=40, unique=True)


class Order(models.Model):
    customer = models.ForeignKey(Customer, related_name="orders", on_delete=models.CASCADE)
    status = models.CharField(max_length=20, default="new")


class OrderLine(models.Model):
    order = models.ForeignKey(Order, related_name="lines", on_delete=models.CASCADE)
    product = models.ForeignKey(Product, related_name="+", on_delete=models.PROTECT)
    quantity = models.IntegerField()
