"""Background jobs."""
import logging
from datetime import timedelta

from celery import shared_task
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from forum.models import Ban, Notification, Profile, ReputationEvent, Subscription, Tag, Thread

logger = logging.getLogger(__name__)
User = get_user_model()

TRUSTED_THRESHOLD = 500


@shared_task
def fan_out_new_thread(thread_id):
    thread = Thread.objects.get(pk=thread_id)
    watchers = Subscription.objects.filter(thread__board_id=thread.board_id).values_list("user_id", flat=True).distinct()
    logger.info("new thread %s: %d watchers to notify", thread_id, len(watchers))


@shared_task
def send_daily_digest(user_id):
    since = timezone.now() - timedelta(days=1)
    with transaction.atomic():
        user = User.objects.get(pk=user_id)
        batch = Notification.objects.non_polymorphic().filter(recipient_id=user_id, read_at__isnull=True, digested_at__isnull=True, created_at__gte=since).order_by("-created_at")[:50]
        if batch:
            body = "\n".join(f"- {n.created_at:%H:%M} notification #{n.pk}" for n in batch)
            EmailMessage(subject="Your daily forum digest", body=body, to=[user.email]).send()
            Notification.objects.filter(pk__in=[n.pk for n in batch]).update(digested_at=timezone.now())


@shared_task
def recompute_reputation(user_id):
    with transaction.atomic():
        total = ReputationEvent.objects.filter(user_id=user_id).aggregate(total=Sum("delta"))["total"] or 0
        Profile.objects.filter(user_id=user_id).update(reputation=total)
        if total >= TRUSTED_THRESHOLD:
            Profile.objects.filter(user_id=user_id, is_trusted=False).update(is_trusted=True)


@shared_task
def lift_expired_bans():
    with transaction.atomic():
        Ban.objects.filter(until__isnull=False, until__lt=timezone.now()).delete()


@shared_task
def rebuild_tag_counts():
    with transaction.atomic():
        for tag in Tag.objects.all():
            used = tag.threads.filter(is_hidden=False).count()
            Tag.objects.filter(pk=tag.pk).update(usage_count=used)
