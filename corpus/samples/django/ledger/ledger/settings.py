"""Django settings for the ledger service."""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ["LEDGER_SECRET_KEY"] if "LEDGER_SECRET_KEY" in os.environ else "dev-insecure"
DEBUG = bool(int(os.environ.get("LEDGER_DEBUG", "0")))
ALLOWED_HOSTS = ["*"] if DEBUG else os.environ.get("LEDGER_HOSTS", "").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ledger.apps.LedgerConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ledger.urls"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("LEDGER_DB", "ledger"),
        "USER": os.environ.get("LEDGER_DB_USER", "ledger"),
        "PASSWORD": os.environ.get("LEDGER_DB_PASSWORD", ""),
        "HOST": os.environ.get("LEDGER_DB_HOST", "localhost"),
        "PORT": "5432",
        "ATOMIC_REQUESTS": True,
        "OPTIONS": {"isolation_level": 3},
    }
}

CELERY_BROKER_URL = os.environ.get("LEDGER_BROKER_URL", "amqp://localhost")

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
DEFAULT_FROM_EMAIL = "no-reply@ledger.example.test"

STATEMENT_BUCKET = os.environ.get("LEDGER_STATEMENT_BUCKET", "ledger-statements")
FX_RATES_URL = os.environ.get("LEDGER_FX_URL", "https://rates.example.test/latest")

# Chart of accounts conventions.
LEDGER_INTEREST_EXPENSE_ACCOUNT = int(os.environ.get("LEDGER_INTEREST_EXPENSE_ACCOUNT", "1"))
RETAINED_EARNINGS_NUMBER = "3900"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
