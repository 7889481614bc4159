import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ledger.settings")

app = Celery("ledger")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    "accrue-daily-interest": {"task": "ledger.tasks.accrue_daily_interest", "schedule": crontab(hour=0, minute=5)},
    "flag-overdrawn": {"task": "ledger.tasks.flag_overdrawn_accounts", "schedule": crontab(minute="*/15")},
    "refresh-rates": {"task": "ledger.tasks.refresh_exchange_rates", "schedule": crontab(hour=6, minute=0)},
}
