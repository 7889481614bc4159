import logging
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Q, Sum
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import require_POST

from shop import helpers
from shop.forms import AddressForm, CheckoutForm
from shop.models import Address, Customer, Order, PriceChange, Product, ReturnRequest, StockAlert, StockLevel
from shop.services.checkout import place_order
from shop.services.coupons import apply_coupon
from shop.tasks import process_return

logger = logging.getLogger(__name__)

REPRICE_FILTERS = {"category": "category__slug", "sku_prefix": "sku__startswith", "name": "name__icontains"}


def product_list(request):
    term = request.GET.get("q", "").strip()
    products = Product.objects.search(term) if term else Product.objects.active()
    return render(request, "shop/product_list.html", {"products": products.order_by("name")[:48]})


def product_search_api(request):
    term = request.GET.get("q", "")
    qs = Product.objects.filter(Q(name__icontains=term) | Q(sku__iexact=term), is_active=True)
    return JsonResponse({"results": list(qs.values("sku", "name", "price")[:20])})


async def product_stock(request, product_id):
    product = await Product.objects.aget(pk=product_id)
    totals = await StockLevel.objects.filter(product=product).aaggregate(free=Sum(F("quantity") - F("reserved")))
    return JsonResponse({"sku": product.sku, "available": totals["free"] or 0})


async def stock_alert_signup(request, product_id):
    product = await Product.objects.aget(pk=product_id, is_active=True)
    alert = await StockAlert.objects.acreate(product=product, email=request.POST["email"])
    return JsonResponse({"alert": alert.pk}, status=201)


@login_required
def order_detail(request, number):
    order = get_object_or_404(Order, number=number, customer__user=request.user)
    lines = list(order.lines.all())
    return render(request, "shop/order_detail.html", {"order": order, "lines": lines})


class CheckoutView(LoginRequiredMixin, View):
    def post(self, request):
        form = CheckoutForm(request.POST)
        if not form.is_valid():
            return JsonResponse({"errors": form.errors}, status=400)
        customer = request.user.customer
        items = request.session.get("cart", [])
        order = place_order(customer, items, form.cleaned_data["shipping_address_id"])
        request.session["cart"] = []
        return JsonResponse({"number": order.number, "total": str(order.total)}, status=201)


@login_required
@require_POST
def apply_coupon_view(request, number):
    order = get_object_or_404(Order, number=number, customer__user=request.user)
    discount = apply_coupon(order.pk, order.customer_id, request.POST["code"])
    return JsonResponse({"discount": str(discount)})


@method_decorator(login_required, name="dispatch")
@method_decorator(transaction.atomic, name="dispatch")
class CancelOrderView(View):
    CANCELLABLE = (Order.Status.PENDING, Order.Status.PAID)

    def post(self, request, number):
        order = get_object_or_404(Order.objects.select_for_update().filter(status__in=self.CANCELLABLE), number=number, customer__user=request.user)
        for reservation in order.reservations.filter(released=False):
            helpers.release_stock(reservation)
        order.status = Order.Status.CANCELLED
        order.save(update_fields=["status", "updated"])
        return JsonResponse({"number": order.number, "status": order.status})


class AddressBookView(LoginRequiredMixin, View):
    def get(self, request):
        addresses = Address.objects.filter(customer__user=request.user).order_by("label")
        return render(request, "shop/addresses.html", {"addresses": addresses, "form": AddressForm()})

    @method_decorator(transaction.atomic)
    def post(self, request):
        form = AddressForm(request.POST)
        if not form.is_valid():
            return render(request, "shop/addresses.html", {"form": form}, status=400)
        data = form.cleaned_data
        customer = request.user.customer
        address, _ = Address.objects.update_or_create(customer=customer, label=data["label"], defaults={"line1": data["line1"], "city": data["city"], "postcode": data["postcode"], "country": data["country"]})
        if data["make_default"]:
            Address.objects.filter(customer=customer, is_default=True).exclude(pk=address.pk).update(is_default=False)
            Address.objects.filter(pk=address.pk).update(is_default=True)
            Customer.objects.filter(pk=customer.pk).update(default_address=address)
        return redirect("shop:addresses")


@staff_member_required
@require_POST
def bulk_reprice(request):
    filters = {REPRICE_FILTERS[key]: value for key, value in request.POST.items() if key in REPRICE_FILTERS}
    percent = Decimal(request.POST["percent"])
    with transaction.atomic(savepoint=False):
        Product.objects.filter(**filters).update(price=F("price") * (100 + percent) / 100)
        PriceChange.objects.create(changed_by=request.user, filters=filters, percent=percent)
    return redirect("admin:shop_product_changelist")


@staff_member_required
@require_POST
def upload_product_image(request, product_id):
    upload = request.FILES["image"]
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=product_id)
        path = default_storage.save(f"products/{product.sku}/{upload.name}", upload)
        product.image.name = path
        product.save(update_fields=["image", "updated"])
    return redirect("admin:shop_product_change", product_id)


@login_required
@require_POST
def request_return(request, number):
    with transaction.atomic():
        order = get_object_or_404(Order, number=number, customer__user=request.user)
        return_request = ReturnRequest.objects.create(order=order, reason=request.POST.get("reason", ""))
        process_return.delay(return_request.pk)
    return redirect("shop:order-detail", number=number)


@sync_to_async
def _cart_total(items):
    prices = Product.objects.in_bulk([item["product_id"] for item in items])
    return sum(prices[item["product_id"]].price * item["quantity"] for item in items)


async def cart_summary(request):
    items = await sync_to_async(request.session.get)("cart", [])
    total = await _cart_total(items)
    return JsonResponse({"items": len(items), "total": str(total)})
