"""Signal receivers. Connected in ShopConfig.ready()."""
from django.db.models.signals import post_save
from django.dispatch import receiver

from shop.models import Order, OrderStatusEvent


@receiver(post_save, sender=Order)
def record_status_event(sender, instance, created, **kwargs):
    """Append-only history of order states, written on every save of an order."""
    OrderStatusEvent.objects.create(order=instance, status=instance.status)
