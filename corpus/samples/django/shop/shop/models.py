import uuid
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone
from mptt.models import MPTTModel, TreeForeignKey

from shop.managers import OrderManager, ProductQuerySet


class TimeStamped(models.Model):
    """Abstract base: creation and last-modification timestamps."""

    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Category(MPTTModel):
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140, unique=True)
    parent = TreeForeignKey("self", null=True, blank=True, related_name="children", on_delete=models.CASCADE)
    is_active = models.BooleanField(default=True)

    class MPTTMeta:
        order_insertion_by = ["name"]

    def __str__(self):
        return self.name


class Product(TimeStamped):
    sku = models.CharField(max_length=32, unique=True)
    name = models.CharField(max_length=200)
    category = models.ForeignKey(Category, related_name="products", on_delete=models.PROTECT)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    is_active = models.BooleanField(default=True)
    image = models.ImageField(upload_to="products/", blank=True)

    objects = ProductQuerySet.as_manager()

    def __str__(self):
        return f"{self.sku} {self.name}"


class Warehouse(models.Model):
    code = models.CharField(max_length=8, primary_key=True)
    name = models.CharField(max_length=100)
    city = models.CharField(max_length=80)

    def __str__(self):
        return self.code


class StockLevel(models.Model):
    product = models.ForeignKey(Product, related_name="stock_levels", on_delete=models.CASCADE)
    warehouse = models.ForeignKey(Warehouse, on_delete=models.CASCADE)
    quantity = models.IntegerField(default=0)
    reserved = models.IntegerField(default=0)

    class Meta:
        unique_together = [("product", "warehouse")]


class StockMovement(TimeStamped):
    product = models.ForeignKey(Product, related_name="movements", on_delete=models.CASCADE)
    warehouse = models.ForeignKey(Warehouse, on_delete=models.CASCADE)
    delta = models.IntegerField()
    reason = models.CharField(max_length=120)


class StockAlert(models.Model):
    product = models.ForeignKey(Product, related_name="alerts", on_delete=models.CASCADE)
    email = models.EmailField()
    notified_at = models.DateTimeField(null=True, blank=True)


class Customer(TimeStamped):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="customer", on_delete=models.CASCADE)
    email = models.EmailField(unique=True)
    full_name = models.CharField(max_length=150)
    newsletter = models.BooleanField(default=False)
    loyalty_points = models.PositiveIntegerField(default=0)
    default_address = models.ForeignKey("Address", null=True, blank=True, related_name="+", on_delete=models.SET_NULL)

    def __str__(self):
        return self.full_name


class Address(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    label = models.CharField(max_length=40, default="home")
    line1 = models.CharField(max_length=200)
    city = models.CharField(max_length=80)
    postcode = models.CharField(max_length=12)
    country = models.CharField(max_length=2)
    is_default = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["customer", "label"], name="uniq_address_label_per_customer"),
        ]


class Coupon(models.Model):
    code = models.CharField(max_length=24, primary_key=True)
    percent_off = models.PositiveSmallIntegerField()
    max_uses = models.PositiveIntegerField(default=0)
    times_used = models.PositiveIntegerField(default=0)
    valid_until = models.DateTimeField(null=True, blank=True)

    def is_exhausted(self):
        return self.max_uses and self.times_used >= self.max_uses

    def is_expired(self):
        return self.valid_until is not None and self.valid_until < timezone.now()

    def discount_for(self, amount):
        return (amount * self.percent_off / Decimal(100)).quantize(Decimal("0.01"))


class Order(TimeStamped):
    class Status(models.TextChoices):
        PENDING = "pending"
        PAID = "paid"
        PACKED = "packed"
        SHIPPED = "shipped"
        DELIVERED = "delivered"
        CANCELLED = "cancelled"

    number = models.CharField(max_length=20, unique=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT)
    shipping_address = models.ForeignKey(Address, null=True, related_name="+", on_delete=models.SET_NULL)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    subtotal = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0"))
    discount = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0"))
    total = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0"))
    coupon = models.ForeignKey(Coupon, null=True, blank=True, related_name="orders", on_delete=models.SET_NULL)
    points_awarded = models.BooleanField(default=False)
    confirmation_sent_at = models.DateTimeField(null=True, blank=True)
    shipped_at = models.DateTimeField(null=True, blank=True)

    objects = OrderManager()

    def __str__(self):
        return self.number


class OrderLine(models.Model):
    order = models.ForeignKey(Order, related_name="lines", on_delete=models.CASCADE)
    product = models.ForeignKey(Product, related_name="order_lines", on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()
    unit_price = models.DecimalField(max_digits=10, decimal_places=2)


class OrderStatusEvent(models.Model):
    order = models.ForeignKey(Order, related_name="status_events", on_delete=models.CASCADE)
    status = models.CharField(max_length=12)
    at = models.DateTimeField(default=timezone.now)


class CouponRedemption(models.Model):
    coupon = models.ForeignKey(Coupon, related_name="redemptions", on_delete=models.PROTECT)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    order = models.ForeignKey(Order, related_name="redemptions", on_delete=models.CASCADE)
    discount = models.DecimalField(max_digits=12, decimal_places=2)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["coupon", "customer"], name="one_redemption_per_customer"),
        ]


class Payment(TimeStamped):
    class Status(models.TextChoices):
        CAPTURED = "captured"
        REFUNDED = "refunded"
        DISPUTED = "disputed"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    order = models.ForeignKey(Order, related_name="payments", on_delete=models.PROTECT)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3, default="EUR")
    provider_ref = models.CharField(max_length=64, unique=True, null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices)
    refunded_amount = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0"))


class Shipment(TimeStamped):
    order = models.OneToOneField(Order, related_name="shipment", on_delete=models.CASCADE)
    carrier = models.CharField(max_length=20)
    tracking_number = models.CharField(max_length=40, unique=True, null=True, blank=True)
    label_key = models.CharField(max_length=200, blank=True)
    pickup_date = models.DateField(null=True, blank=True)


class InventoryReservation(models.Model):
    order = models.ForeignKey(Order, related_name="reservations", on_delete=models.CASCADE)
    product = models.ForeignKey(Product, on_delete=models.CASCADE)
    warehouse = models.ForeignKey(Warehouse, on_delete=models.CASCADE)
    quantity = models.PositiveIntegerField()
    expires_at = models.DateTimeField()
    released = models.BooleanField(default=False)


class PurchaseOrder(TimeStamped):
    class Status(models.TextChoices):
        OPEN = "open"
        RECEIVED = "received"

    supplier_ref = models.CharField(max_length=40)
    warehouse = models.ForeignKey(Warehouse, related_name="purchase_orders", on_delete=models.PROTECT)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    received_at = models.DateTimeField(null=True, blank=True)


class PurchaseOrderLine(models.Model):
    purchase_order = models.ForeignKey(PurchaseOrder, related_name="lines", on_delete=models.CASCADE)
    product = models.ForeignKey(Product, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()


class ReturnRequest(TimeStamped):
    order = models.ForeignKey(Order, related_name="returns", on_delete=models.CASCADE)
    reason = models.TextField(blank=True)
    status = models.CharField(max_length=12, default="requested")


class WebhookEvent(TimeStamped):
    provider_event_id = models.CharField(max_length=80, unique=True)
    kind = models.CharField(max_length=80)
    body = models.JSONField()
    processed_at = models.DateTimeField(null=True, blank=True)


class OutboxMessage(models.Model):
    """Transactional outbox: a relay process publishes these after commit."""

    topic = models.CharField(max_length=80)
    payload = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)
    dispatched_at = models.DateTimeField(null=True, blank=True)


class PriceChange(TimeStamped):
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    filters = models.JSONField(default=dict)
    percent = models.DecimalField(max_digits=6, decimal_places=2)
