"""Autocommit call sites in the warm cache: each function's walk is reused while its definition,
the project's facts and what its callees return are as before; a warm scan gives byte for byte
the output of a cold scan of the same tree, and an edited helper re-walks the functions that
used what it returns, and only those."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import replace_once, write_files

from analyzer.cache import ScanCache, cachefile
from analyzer.cache.django import DjangoReuse
from analyzer.config import load
from analyzer.django import frontend
from analyzer.output import json_contract
from analyzer.scan import scan

FILES = {
    "manage.py": "import sys\n",
    "store/__init__.py": "",
    "store/models.py": '''from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=40)


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    open = models.BooleanField(default=True)
    total = models.IntegerField(default=0)

    def customer_name(self):
        return self.customer.name

    def label(self):
        return f"{self.pk} for {self.customer.name}"
''',
    "store/queries.py": '''from store.models import Order


def open_orders(customer):
    Order.objects.filter(total=0).exists()
    return Order.objects.filter(customer=customer, open=True)


def large_open_orders(customer):
    if not Order.objects.filter(customer=customer).exists():
        return Order.objects.none()
    return open_orders(customer).filter(total__gt=100)
''',
    "store/counting.py": '''from store.models import Customer


def customer_count():
    return Customer.objects.count()
''',
    "store/views.py": '''from store.counting import customer_count
from store.models import Customer
from store.queries import large_open_orders, open_orders


def list_orders(request, customer_id):
    customer = Customer.objects.get(pk=customer_id)
    return [order.total for order in open_orders(customer)]


def large_orders(request, customer_id):
    customer = Customer.objects.get(pk=customer_id)
    return large_open_orders(customer).count()


def customers(request):
    return customer_count() + Customer.objects.filter(name="").count()


def rename(request, customer_id):
    customer = Customer.objects.get(pk=customer_id)
    customer.name = request.POST["name"]
    customer.save()
''',
}


def _project(tmp_path: Path) -> Path:
    return write_files(tmp_path / "store_app", FILES)


def _sites_walked(root: Path, folder: Path) -> list[str]:
    """The functions (and modules) whose autocommit call sites a scan with the cache in `folder` walked."""
    cache = ScanCache(folder)
    reuse = DjangoReuse(cache.tables("django"))
    frontend.scan(root, frontend.Options(), reuse)
    cache.keep("django", reuse.written)
    return sorted(reuse.sites_walked)


def _bytes(root: Path, cache: ScanCache | None) -> tuple[str, str]:
    result = scan(root, load(root), cache=cache, rewrites=False)
    documents = "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                   len(result.files))) for mode in ("pk", "auto"))
    return documents, result.ir_text


def _autocommit(ir_text: str) -> dict[str, dict]:
    records = [json.loads(line) for line in ir_text.splitlines()]
    return {r["function"] + ":" + str(r["line"]): r for r in records
            if r.get("type") == "transaction" and r["boundary"] == "autocommit"}


def test_a_helpers_return_value_makes_statements_of_its_callers(tmp_path):
    found = _autocommit(_bytes(_project(tmp_path), None)[1])
    assert found["store.views.list_orders:8"]["steps"][0]["api"] == "filter.iterate"
    large = found["store.views.large_orders:13"]["steps"][0]
    assert (large["entity"], large["api"]) == ("Order", "filter.filter.count")


def test_each_function_reports_its_own_reads_whatever_order_functions_are_reached_in(tmp_path, monkeypatch):
    """Both methods read `self.customer` (one query each time either runs): both report it, and
    reaching the functions in the opposite order gives the same bytes."""
    from analyzer.django.autocommit import _Autocommit

    root = _project(tmp_path)
    forward = _bytes(root, None)
    found = _autocommit(forward[1])
    for method in ("customer_name", "label"):
        (record,) = [r for key, r in found.items() if key.startswith(f"store.models.Order.{method}:")]
        assert [(s["api"], s["entity"]) for s in record["steps"]] == [("fk:customer", "Customer")]
    entry_points = _Autocommit.entry_points
    monkeypatch.setattr(_Autocommit, "entry_points", lambda self, explicit: entry_points(self, explicit)[::-1])
    assert _bytes(root, None) == forward


def test_warm_scan_after_editing_a_helper_equals_a_cold_scan(tmp_path):
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    before = _bytes(root, ScanCache(folder))
    replace_once(root / "store" / "queries.py", "customer=customer, open=True", "customer=customer, open=False")
    warm = _bytes(root, ScanCache(folder))
    assert warm == _bytes(root, None)
    assert warm != before
    assert _bytes(root, ScanCache(folder)) == warm  # and again, from the cache the warm scan wrote


def test_an_edited_helper_rewalks_the_functions_that_used_what_it_returns_and_only_those(tmp_path):
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    cold = _sites_walked(root, folder)
    assert {"store.views.list_orders", "store.views.customers", "store.queries.open_orders"} <= set(cold)
    assert _sites_walked(root, folder) == []  # nothing changed: nothing walked

    # What open_orders returns changes: it, the helper returning what it returns, and the views
    # using either are walked again; customers() and rename() and customer_count() are not.
    replace_once(root / "store" / "queries.py", "customer=customer, open=True", "customer=customer, open=False")
    assert _sites_walked(root, folder) == ["store.queries.large_open_orders", "store.queries.open_orders",
                                           "store.views.large_orders", "store.views.list_orders"]

    # A statement that leaves the return value as it was (and moves no line): only the helper.
    replace_once(root / "store" / "queries.py", "Order.objects.filter(total=0).exists()", "Order.objects.filter(total=0).delete()")
    assert _sites_walked(root, folder) == ["store.queries.open_orders"]

    # A line added above the helpers moves them: both are walked again (their records carry
    # lines), and the views using them are not (what they return is the same).
    replace_once(root / "store" / "queries.py", "def open_orders", "# the open orders\ndef open_orders")
    assert _sites_walked(root, folder) == ["store.queries.large_open_orders", "store.queries.open_orders"]


def test_an_edited_helper_whose_value_no_caller_uses_rewalks_it_alone(tmp_path):
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    _sites_walked(root, folder)
    replace_once(root / "store" / "counting.py", "Customer.objects.count()",
                 "Customer.objects.filter(name='x').count()")
    assert _sites_walked(root, folder) == ["store.counting.customer_count"]


def test_a_return_value_the_cache_cannot_keep_is_walked_again_with_its_users(tmp_path, monkeypatch):
    """A value outside what analyzer/cache/values.py encodes: neither the helper's walk nor the
    walks that used its value are kept; the next scan walks them again and gives the same bytes."""
    from analyzer.django import call_sites

    def refuse_orders(value):
        if getattr(value, "kind", None) == "qs" and value.qs.entity == "Order":
            raise TypeError("not kept")
        return call_sites.encode.__wrapped__(value)

    refuse_orders.__wrapped__ = call_sites.encode
    monkeypatch.setattr(call_sites, "encode", refuse_orders)
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    _sites_walked(root, folder)
    again = _sites_walked(root, folder)
    assert {"store.queries.open_orders", "store.queries.large_open_orders", "store.views.list_orders",
            "store.views.large_orders"} <= set(again)
    assert "store.views.customers" not in again and "store.counting.customer_count" not in again
    assert _bytes(root, ScanCache(folder)) == _bytes(root, None)


def test_a_function_whose_orm_evidence_is_in_another_file_is_walked_once_that_file_gives_it(tmp_path):
    """What the phase reads off a file before walking (ORM evidence, calls by name) is kept with
    the file's content and the project's facts: `order.siblings()` is ORM code only once the
    model has such a method, an edit of models.py alone, and the unchanged reports.py must then be
    walked."""
    root = _project(tmp_path)
    (root / "store" / "reports.py").write_text("def sibling_totals(order):\n"
                                               "    return [o.total for o in order.siblings()]\n")
    folder = tmp_path / "cache"
    before = _autocommit(_bytes(root, ScanCache(folder))[1])
    assert not any(key.startswith("store.reports.") for key in before)
    replace_once(root / "store" / "models.py", "    def customer_name(self):",
                 "    def siblings(self):\n        return Order.objects.filter(customer=self.customer)\n\n"
                 "    def customer_name(self):")
    warm = _bytes(root, ScanCache(folder))
    assert warm == _bytes(root, None)
    (record,) = [r for key, r in _autocommit(warm[1]).items() if key.startswith("store.reports.sibling_totals:")]
    assert [(s["entity"], s["api"]) for s in record["steps"]] == [("Order", "filter.iterate")]


def test_kept_autocommit_records_are_their_ir_lines_and_not_encoded_again(tmp_path, monkeypatch):
    """A walk's records are kept as their IR lines: a warm scan takes each record with its line
    (ir.dumps writes the line as it is, ir.loads gives the record back) and encodes none of them
    again, gives a cold scan's bytes, and reads entries kept with their records (a helper's) too."""
    from analyzer import ir

    root = _project(tmp_path)
    folder = tmp_path / "cache"
    _bytes(root, ScanCache(folder))
    kept = [entry for line in (folder / "django.json").read_text().splitlines() if line.startswith("autocommit\t")
            for entry in json.loads(line.split("\t", 3)[2])]
    assert kept and all("records" not in entry for entry in kept)
    walked = [entry for entry in kept if entry.get("record_lines")]
    assert walked and all(json.loads(line)["boundary"] == "autocommit" for e in walked for line in e["record_lines"])

    encoded = []
    line = ir.line
    monkeypatch.setattr(ir, "line", lambda record: encoded.append(record) or line(record))
    replace_once(root / "store" / "queries.py", "customer=customer, open=True", "customer=customer, open=False")
    warm = _bytes(root, ScanCache(folder))
    # only the records of the walks made again (the edited helper's and its callers') are encoded
    again = {r["function"] for r in encoded if r.get("boundary") == "autocommit"}
    assert again and again < {r["function"] for r in _autocommit(warm[1]).values()}
    assert warm == _bytes(root, None)

    # the form with the records (a helper process's walks) is read as it was
    path = folder / "django.json"
    lines = path.read_text().split("\n")
    for number, text in enumerate(lines):
        if text.startswith("autocommit\t"):
            table, key, value, _check = text.split("\t", 3)
            entries = [{**{k: v for k, v in e.items() if k != "record_lines"},
                        "records": [json.loads(t) for t in e["record_lines"]]} if "record_lines" in e else e
                       for e in json.loads(value)]
            value = json.dumps(entries)
            lines[number] = f"{table}\t{key}\t{value}\t{cachefile.entry_check(json.loads(key), value)}"
    path.write_text("\n".join(lines))
    encoded.clear()
    assert _bytes(root, ScanCache(folder)) == warm
    assert any(r.get("boundary") == "autocommit" for r in encoded)  # (those records were encoded)
    assert _bytes(root, ScanCache(folder)) == warm
