"""Settings for the community forum."""
import os
from pathlib import Path

import environ

env = environ.Env(DEBUG=(bool, False))
BASE_DIR = Path(__file__).resolve().parent.parent
environ.Env.read_env(BASE_DIR / ".env")

SECRET_KEY = env("SECRET_KEY", default="forum-dev-key")
DEBUG = env("DEBUG")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "polymorphic",
    "forum.apps.ForumConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "forum.urls"
AUTH_USER_MODEL = "forum.User"

DATABASES = {
    "default": env.db("DATABASE_URL", default="postgres://forum:forum@localhost:5432/forum"),
}
DATABASES["default"]["CONN_MAX_AGE"] = 30

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env("REDIS_URL", default="redis://localhost:6379/0"),
    }
}

CELERY_BROKER_URL = env("BROKER_URL", default="redis://localhost:6379/3")

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
DEFAULT_FROM_EMAIL = "forum@example.test"
ADMINS = [("Moderators", "mods@example.test")]

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = env("MEDIA_ROOT", default=str(BASE_DIR / "media"))

SPAM_CHECK_URL = env("SPAM_CHECK_URL", default="https://spam-check.example.test/v1/check")

# Outgoing integrations: webhook kind -> callable(hook, thread, event)
FORUM_WEBHOOK_SENDERS = {
    "slack": "forum_integrations.slack.send",
    "discord": "forum_integrations.discord.send",
    "generic": "forum_integrations.http.send_json",
}

TIME_ZONE = "UTC"
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
