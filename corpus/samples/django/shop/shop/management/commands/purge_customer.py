"""Interactive GDPR erasure of a customer account."""
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from shop.models import Customer, Order


class Command(BaseCommand):
    help = "Delete a customer account after confirmation."

    def add_arguments(self, parser):
        parser.add_argument("email")

    def handle(self, *args, **options):
        with transaction.atomic():
            customer = Customer.objects.select_for_update().get(email__iexact=options["email"])
            open_orders = customer.order_set.filter(status__in=[Order.Status.PENDING, Order.Status.PAID]).count()
            answer = input(f"Delete {customer.full_name} ({open_orders} open orders)? [y/N] ")
            if answer.strip().lower() != "y":
                raise CommandError("aborted, nothing deleted")
            customer.delete()
        self.stdout.write("deleted")
