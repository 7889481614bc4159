"""AUTH_USER_MODEL written as something other than a plain literal (django-oscar's compat
module: `getattr(settings, "AUTH_USER_MODEL", "auth.User")`) names the user model by its
"app_label.Model" literal; it once produced an entity named `User")` that broke the scan."""

from pathlib import Path

from analyzer.scan import scan

MODELS = '''from django.db import models
from .compat import AUTH_USER_MODEL


class Wishlist(models.Model):
    owner = models.ForeignKey(AUTH_USER_MODEL, on_delete=models.CASCADE)
    name = models.CharField(max_length=50)
'''

SERVICES = '''from django.db import transaction
from .models import Wishlist


def rename(wishlist: Wishlist, name):
    with transaction.atomic():
        wishlist.name = name
        wishlist.save()
'''


def _project(tmp_path: Path, compat: str) -> Path:
    app = tmp_path / "wishes"
    app.mkdir()
    (tmp_path / "manage.py").write_text("")
    (app / "__init__.py").write_text("")
    (app / "compat.py").write_text(compat)
    (app / "models.py").write_text(MODELS)
    (app / "services.py").write_text(SERVICES)
    return tmp_path


def _user_entities(result) -> list[str]:
    return sorted(e["name"] for e in result.records if e.get("type") == "entity"
                  and e.get("table") == "auth_user" or e.get("qualname", "").endswith("auth.models.User"))


def test_getattr_default_names_the_user_model(tmp_path):
    compat = 'from django.conf import settings\nAUTH_USER_MODEL = getattr(settings, "AUTH_USER_MODEL", "auth.User")\n'
    result = scan(_project(tmp_path, compat), rewrites=False)
    assert _user_entities(result) == ["User"]
    assert [t["function"] for t in result.records if t.get("type") == "transaction"
            and t["boundary"] != "autocommit"] == ["wishes.services.rename"]


def test_a_value_without_a_model_literal_falls_back_to_user(tmp_path):
    result = scan(_project(tmp_path, 'AUTH_USER_MODEL = get_user_model_name()\n'), rewrites=False)
    assert _user_entities(result) == ["User"]
