"""Custom querysets and managers for the shop models."""
from django.db import models
from django.utils import timezone


class ProductQuerySet(models.QuerySet):
    def active(self):
        return self.filter(is_active=True)

    def search(self, term):
        return self.active().filter(name__icontains=term)

    def in_category(self, category):
        return self.filter(category__in=category.get_descendants(include_self=True))


class OrderQuerySet(models.QuerySet):
    OPEN_STATUSES = ("pending", "paid", "packed")

    def open(self):
        return self.filter(status__in=self.OPEN_STATUSES)

    def for_customer(self, customer):
        return self.filter(customer=customer)

    def mark_shipped(self):
        """Flag every order of this queryset as handed to the carrier."""
        return self.update(status="shipped", shipped_at=timezone.now())


OrderManager = models.Manager.from_queryset(OrderQuerySet)
