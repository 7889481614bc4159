# Old nightly report script, kept for reference. Still Python 2.
import sys
from shop.models import Order


def main():
    count = Order.objects.count()
    print "orders so far: %d" % count
    for order in Order.objects.all()[:10]:
        print order.number, order.total
    sys.exit(0)
