"""Settings for the shop project.

Development defaults live here; production values come from the environment.
"""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get("SHOP_SECRET_KEY", "dev-only-insecure-key")
DEBUG = os.environ.get("SHOP_DEBUG", "0") == "1"
ALLOWED_HOSTS = os.environ.get("SHOP_ALLOWED_HOSTS", "localhost,127.0.0.1").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "mptt",
    "storages",
    "shop.apps.ShopConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "shop.urls"
WSGI_APPLICATION = "shop.wsgi.application"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("SHOP_DB_NAME", "shop"),
        "USER": os.environ.get("SHOP_DB_USER", "shop"),
        "PASSWORD": os.environ.get("SHOP_DB_PASSWORD", ""),
        "HOST": os.environ.get("SHOP_DB_HOST", "localhost"),
        "PORT": os.environ.get("SHOP_DB_PORT", "5432"),
        "CONN_MAX_AGE": 60,
    }
}

# Wrap every request in a transaction.
ATOMIC_REQUESTS = True

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ.get("SHOP_REDIS_URL", "redis://localhost:6379/1"),
    }
}
REDIS_URL = os.environ.get("SHOP_REDIS_URL", "redis://localhost:6379/1")

CELERY_BROKER_URL = os.environ.get("SHOP_BROKER_URL", "redis://localhost:6379/2")
CELERY_TASK_ALWAYS_EAGER = False

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
DEFAULT_FROM_EMAIL = "orders@example-shop.test"
ADMINS = [("Shop ops", "ops@example-shop.test")]

STORAGES = {
    "default": {"BACKEND": "storages.backends.s3.S3Storage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
AWS_STORAGE_BUCKET_NAME = os.environ.get("SHOP_MEDIA_BUCKET", "shop-media")
LABEL_BUCKET = os.environ.get("SHOP_LABEL_BUCKET", "shop-shipping-labels")

STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
PAYMENT_API = os.environ.get("SHOP_PAYMENT_API", "https://payments.example.test/v1")
CARRIER_API = {
    "dhl": "https://carrier-dhl.example.test/labels",
    "ups": "https://carrier-ups.example.test/shipments",
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
