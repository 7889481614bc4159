"""Back-office exports."""
import csv
import subprocess

from django.db import transaction
from django.db.models import Count, F, Sum

from shop.models import Order, OrderLine


def export_sales_report(start, end, path):
    """Write a per-product sales CSV for [start, end) and compress it for the accountants."""
    with transaction.atomic():
        totals = Order.objects.filter(created__range=(start, end)).exclude(status=Order.Status.CANCELLED).aggregate(revenue=Sum("total"), orders=Count("id"))
        per_product = OrderLine.objects.filter(order__created__gte=start, order__created__lt=end, quantity__gt=0).values("product__sku").annotate(units=Sum("quantity"), revenue=Sum(F("quantity") * F("unit_price")))
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["sku", "units", "revenue"])
            for row in per_product:
                writer.writerow([row["product__sku"], row["units"], row["revenue"]])
            writer.writerow(["TOTAL", totals["orders"], totals["revenue"]])
        subprocess.run(["gzip", "-f", path], check=True)
