"""Import or update products from the supplier's CSV export."""
import csv
from decimal import Decimal

from django.core.management.base import BaseCommand
from django.db import transaction

from shop.models import Category, Product


class Command(BaseCommand):
    help = "Import products from a CSV file (sku,name,price,category)."

    def add_arguments(self, parser):
        parser.add_argument("csv_path")

    def handle(self, *args, **options):
        with open(options["csv_path"], newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        transaction.set_autocommit(False)
        try:
            for row in rows:
                category = Category.objects.get(slug=row["category"])
                Product.objects.update_or_create(sku=row["sku"], defaults={"name": row["name"], "price": Decimal(row["price"]), "category": category})
            transaction.commit()
        except Exception:
            transaction.rollback()
            raise
        finally:
            transaction.set_autocommit(True)
        self.stdout.write(self.style.SUCCESS(f"imported {len(rows)} products"))
