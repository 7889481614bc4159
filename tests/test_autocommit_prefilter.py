"""What the autocommit phase decides before walking anything (analyzer/django/orm_evidence.py,
entry_points.py): which functions may hold an ORM call site, whom each function calls by name,
where a call site's column is. A function the prefilter wrongly leaves out loses its call sites;
one whose helpers are left out must still reach the call sites behind them. Each case below is a
call site that only one kind of evidence (or only one path) leads to."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.config import load
from analyzer.scan import scan

FILES = {
    "manage.py": "import sys\n",
    "shop/__init__.py": "",
    "shop/models.py": '''from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=40)


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    total = models.IntegerField(default=0)

    def buyer_name(self):
        return self.customer.name


class CustomerOrder(models.Model):
    note = models.CharField(max_length=40)
''',
    # No line of prepare() or of its module hints at the ORM; the query is two calls further.
    "shop/steps.py": '''from shop.totals import crunch


def prepare(amount):
    return crunch(amount) + 1
''',
    "shop/totals.py": '''from shop.models import Order


def crunch(amount):
    return Order.objects.filter(total__gt=amount).count()
''',
    "shop/views.py": '''from shop.models import CustomerOrder, Order
from shop.steps import prepare


def dashboard(request):
    return prepare(int(request.GET["amount"]))


def by_manager(request):
    return Order.objects.filter(total=0).exists()


def by_instance_method(request, order):
    order.save()


def by_relation_of_a_parameter_named_like_a_model(request, order):
    return order.customer.name


def by_annotation(request, purchase: Order):
    return purchase.customer.name


def by_quoted_annotation(request, purchase: "Order"):
    return purchase.customer.name


def same_text_inside_a_longer_name(request):
    return CustomerOrder.objects.count() + Order.objects.count()
''',
}


def _autocommit(tmp_path: Path) -> dict[str, list[dict]]:
    root = tmp_path / "shop_app"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    result = scan(root, load(root), cache=None, rewrites=False)
    out: dict[str, list[dict]] = {}
    for line in result.ir_text.splitlines():
        record = json.loads(line)
        if record.get("type") == "transaction" and record["boundary"] == "autocommit":
            out.setdefault(record["function"], []).append(record)
    return out


def _apis(records: list[dict]) -> list[tuple[str, str]]:
    return [(s["entity"], s["api"]) for r in records for s in r["steps"]]


def test_a_call_site_behind_helpers_whose_text_names_no_orm_is_reached(tmp_path):
    found = _autocommit(tmp_path)
    # crunch() is called by the application (not an entry point of its own): only the view,
    # through prepare(), reaches it.
    assert _apis(found["shop.totals.crunch"]) == [("Order", "filter.count")]
    assert "shop.steps.prepare" not in found and "shop.views.dashboard" not in found


def test_each_kind_of_orm_evidence_gets_its_function_walked(tmp_path):
    found = _autocommit(tmp_path)
    assert _apis(found["shop.views.by_manager"]) == [("Order", "filter.exists")]
    assert [s["kind"] for r in found["shop.views.by_instance_method"] for s in r["steps"]] == ["write"]
    for view in ("by_relation_of_a_parameter_named_like_a_model", "by_annotation", "by_quoted_annotation"):
        assert _apis(found[f"shop.views.{view}"]) == [("Customer", "fk:customer")], view
    # `self` in a model's method is a row.
    assert _apis(found["shop.models.Order.buyer_name"]) == [("Customer", "fk:customer")]


def test_a_call_sites_column_is_where_its_own_text_starts(tmp_path):
    """`Order.objects.count()` also appears inside `CustomerOrder.objects.count()` on the same
    line: its column is that of the second call, not of the text inside the longer name."""
    records = _autocommit(tmp_path)["shop.views.same_text_inside_a_longer_name"]
    source = FILES["shop/views.py"].splitlines()[records[0]["line"] - 1]
    columns = {r["steps"][0]["entity"]: int(r["id"].rsplit(":", 2)[-2]) for r in records}
    assert columns == {"CustomerOrder": source.index("CustomerOrder.objects") + 1,
                       "Order": source.index("+ Order.objects") + 3}
