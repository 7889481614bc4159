#!/usr/bin/env python3
"""Write a synthetic Django project of a given size, for measuring txscan at scale.

    python scripts/gen_synthetic_django.py OUT_DIR [--lines 300000] [--seed 1]

The project is generated, never committed: the same arguments give the same files, byte for
byte. Its shape follows what real applications do (docs/REAL_PATTERNS.md): per Django app, models
with foreign keys and a custom manager, services that open `transaction.atomic` blocks and call
helpers shared across apps, overridden `save()`s, signal receivers, views and Celery tasks, and a
large share of plain code no transaction reaches (utilities, serialisation, validation), as in a
real code base. It is a measuring input, not a sample: it has no expected results.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

FIELD_KINDS = [
    ("models.CharField(max_length=120)", "'x'"),
    ("models.IntegerField(default=0)", "1"),
    ("models.DecimalField(max_digits=12, decimal_places=2, default=0)", "0"),
    ("models.BooleanField(default=False)", "True"),
    ("models.DateTimeField(auto_now=True)", None),
    ("models.EmailField(unique=True)", "'a@b.c'"),
]


def _models(app: str, rng: random.Random, n_models: int) -> str:
    out = ["from django.db import models", "from django.db.models import F", "",
           f"from .managers import {app.title()}Manager", "", ""]
    for m in range(n_models):
        name = f"{app.title()}Item{m}"
        out.append(f"class {name}(models.Model):")
        out.append(f'    """A {app} record of kind {m}."""')
        out.append("")
        for f in range(rng.randint(4, 9)):
            kind, _ = FIELD_KINDS[(m + f) % len(FIELD_KINDS)]
            if "unique=True" in kind and f > 5:
                kind = "models.EmailField()"
            out.append(f"    field_{f} = {kind}")
        if m > 0:
            out.append(f"    parent = models.ForeignKey({app.title()}Item{rng.randrange(m)}, on_delete=models.CASCADE,"
                       f" related_name='children_{m}')")
        out.append("    counter = models.IntegerField(default=0)")
        out.append("    status = models.CharField(max_length=20, default='new')")
        out.append("")
        out.append(f"    objects = {app.title()}Manager()")
        out.append("")
        out.append("    class Meta:")
        out.append("        ordering = ['-id']")
        out.append("")
        out.append("    def __str__(self):")
        out.append("        return f'{self.pk}'")
        out.append("")
        if m % 3 == 0:
            out.append("    def save(self, *args, **kwargs):")
            out.append("        if self.counter < 0:")
            out.append("            self.counter = 0")
            out.append("        super().save(*args, **kwargs)")
            out.append("")
        out.append("    def bump(self, by=1):")
        out.append("        self.counter = F('counter') + by")
        out.append("        self.save(update_fields=['counter'])")
        out.append("")
        out.append("")
    return "\n".join(out)


def _managers(app: str) -> str:
    return f'''from django.db import models


class {app.title()}QuerySet(models.QuerySet):
    def active(self):
        return self.filter(status="active")

    def stale(self, before):
        return self.filter(status="new", field_0__lt=before)


class {app.title()}Manager(models.Manager.from_queryset({app.title()}QuerySet)):
    def open_for(self, owner_id):
        return self.get_queryset().filter(parent_id=owner_id).exclude(status="closed")
'''


def _services(app: str, rng: random.Random, n_models: int, n_funcs: int, others: list[str]) -> str:
    out = ["import logging", "", "import requests", "from django.db import transaction", "from django.db.models import F",
           "", "from . import helpers", "from .models import " + ", ".join(f"{app.title()}Item{m}" for m in range(n_models))]
    if others:
        out.append(f"from {others[0]}.helpers import audit as other_audit")
    out += ["", "log = logging.getLogger(__name__)", "", ""]
    for i in range(n_funcs):
        model = f"{app.title()}Item{rng.randrange(n_models)}"
        shape = i % 6
        if shape == 0:
            out += ["@transaction.atomic",
                    f"def transfer_{i}(source_id, target_id, amount):",
                    f"    source = {model}.objects.select_for_update().get(pk=source_id)",
                    f"    target = {model}.objects.select_for_update().get(pk=target_id)",
                    "    if source.counter < amount:",
                    "        raise ValueError('insufficient')",
                    "    source.counter -= amount",
                    "    target.counter += amount",
                    "    source.save()",
                    "    target.save()",
                    "    helpers.record(source, 'transfer')",
                    "    return source, target"]
        elif shape == 1:
            out += [f"def bulk_close_{i}(owner_id):",
                    "    with transaction.atomic():",
                    f"        rows = list({model}.objects.open_for(owner_id))",
                    "        for row in rows:",
                    "            row.status = 'closed'",
                    "            row.save(update_fields=['status'])",
                    "        helpers.notify_owner(owner_id, len(rows))",
                    "    return len(rows)"]
        elif shape == 2:
            out += [f"def increment_{i}(pk):",
                    "    with transaction.atomic():",
                    f"        {model}.objects.filter(pk=pk).update(counter=F('counter') + 1)",
                    f"        {model}.objects.filter(pk=pk, counter__gt=100).update(status='hot')"]
        elif shape == 3:
            out += ["@transaction.atomic",
                    f"def create_{i}(data, user_id):",
                    f"    item = {model}.objects.create(field_0=data.get('name', ''), status='new')",
                    "    helpers.record(item, 'created')",
                    "    if data.get('sync'):",
                    "        requests.post('https://hooks.example.com/created', json={'id': item.pk}, timeout=5)",
                    "    return item"]
        elif shape == 4:
            out += [f"def lookup_{i}(email):",
                    "    with transaction.atomic():",
                    f"        item = {model}.objects.filter(field_5=email).first()",
                    "        if item is None:",
                    f"            item = {model}.objects.create(field_5=email)",
                    "        return item"]
        else:
            target = f"other_audit(pk, '{app}')" if others else "helpers.record(None, 'noop')"
            out += [f"def archive_{i}(pk):",
                    "    with transaction.atomic():",
                    f"        {model}.objects.filter(pk=pk).delete()",
                    f"        {target}"]
        out += ["", ""]
        # Code no transaction reaches: validation and formatting, as real services carry.
        for j in range(rng.randint(2, 4)):
            out += [f"def describe_{i}_{j}(payload):",
                    "    parts = []",
                    "    for key, value in sorted(payload.items()):",
                    "        if isinstance(value, (list, tuple)):",
                    "            parts.append(f'{key}=' + ','.join(str(v) for v in value))",
                    "        elif value is None:",
                    "            parts.append(f'{key}=-')",
                    "        else:",
                    "            parts.append(f'{key}={value}')",
                    "    return ' '.join(parts)",
                    "", ""]
    return "\n".join(out)


def _helpers(app: str, n_models: int) -> str:
    return f'''from django.core.mail import send_mail

from .models import {app.title()}Item0


def record(item, event):
    """Append an audit row; every service calls this."""
    entry = {app.title()}Item0.objects.create(field_0=event, status="audit")
    if item is not None:
        {app.title()}Item0.objects.filter(pk=entry.pk).update(counter=1)
    return entry


def notify_owner(owner_id, count):
    owner = {app.title()}Item0.objects.get(pk=owner_id)
    if count:
        send_mail("closed", f"{{count}} items", "noreply@example.com", [owner.field_5])


def audit(pk, origin):
    return record({app.title()}Item0.objects.filter(pk=pk).first(), origin)
'''


def _views(app: str, n_funcs: int) -> str:
    out = ["from django.http import JsonResponse", "from django.views import View", "", "from . import services", "", ""]
    for i in range(0, n_funcs, 3):
        out += [f"class Endpoint{i}View(View):",
                "    def post(self, request, pk):",
                f"        result = services.{_service_name(i)}",
                "        return JsonResponse({'ok': bool(result)})",
                "",
                "    def get(self, request, pk):",
                "        return JsonResponse({'pk': pk})",
                "", ""]
    return "\n".join(out)


def _service_name(i: int) -> str:
    shape = i % 6
    return {0: f"transfer_{i}(pk, pk + 1, 1)", 1: f"bulk_close_{i}(pk)", 2: f"increment_{i}(pk)",
            3: f"create_{i}(request.POST, request.user.pk)", 4: f"lookup_{i}(request.POST['email'])",
            5: f"archive_{i}(pk)"}[shape]


def _filler(app: str, rng: random.Random, n: int) -> str:
    """Plain code with no database access: most of a real code base."""
    out = ["import datetime", "import decimal", "", ""]
    for i in range(n):
        out += [f"class Formatter{i}:",
                f'    """Formats {app} values of kind {i}."""',
                "",
                "    def __init__(self, precision=2, locale='en'):",
                "        self.precision = precision",
                "        self.locale = locale",
                "",
                "    def money(self, value):",
                "        quantum = decimal.Decimal(10) ** -self.precision",
                "        return str(decimal.Decimal(value).quantize(quantum))",
                "",
                "    def when(self, value):",
                "        if isinstance(value, datetime.datetime):",
                "            return value.isoformat()",
                "        return str(value)",
                "",
                "    def rows(self, items):",
                "        result = []",
                "        for index, item in enumerate(items):",
                f"            if index % {rng.randint(2, 9)} == 0:",
                "                result.append(self.money(item))",
                "            else:",
                "                result.append(self.when(item))",
                "        return result",
                "", ""]
    return "\n".join(out)


def generate(out_dir: Path, target_lines: int, seed: int) -> int:
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "manage.py").write_text("import os\nimport sys\n\nif __name__ == '__main__':\n"
                                       "    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
                                       "    from django.core.management import execute_from_command_line\n"
                                       "    execute_from_command_line(sys.argv)\n")
    config = out_dir / "config"
    config.mkdir(exist_ok=True)
    (config / "__init__.py").write_text("")
    written = 7
    apps: list[str] = []
    index = 0
    while written < target_lines:
        app = f"app{index:03d}"
        package = out_dir / app
        package.mkdir(exist_ok=True)
        n_models = rng.randint(6, 12)
        n_funcs = rng.randint(18, 30)
        files = {
            "__init__.py": "",
            "models.py": _models(app, rng, n_models),
            "managers.py": _managers(app),
            "services.py": _services(app, rng, n_models, n_funcs, apps[-1:]),
            "helpers.py": _helpers(app, n_models),
            "views.py": _views(app, n_funcs),
            "formatting.py": _filler(app, rng, rng.randint(40, 70)),
        }
        for name, text in files.items():
            (package / name).write_text(text + ("\n" if text else ""))
            written += text.count("\n") + (1 if text else 0)
        apps.append(app)
        index += 1
    installed = ",\n".join(f"    '{a}'" for a in apps)
    settings = f"SECRET_KEY = 'synthetic'\nINSTALLED_APPS = [\n{installed},\n]\n"
    (config / "settings.py").write_text(settings)
    return written + settings.count("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.out.exists() and any(args.out.iterdir()):
        print(f"gen_synthetic_django: {args.out} is not empty", file=sys.stderr)
        return 2
    lines = generate(args.out, args.lines, args.seed)
    print(f"{args.out}: {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
