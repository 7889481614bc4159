from django.apps import AppConfig


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = "Shop"

    def ready(self):
        # Connect signal receivers.
        from shop import signals  # noqa: F401
