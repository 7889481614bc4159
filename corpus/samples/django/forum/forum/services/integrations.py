"""Outgoing webhooks (Slack, Discord, plain JSON) configured per board."""
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from forum.models import Thread, Webhook

# Built when the module is imported, from dotted paths in settings.
SENDERS = {kind: import_string(path) for kind, path in settings.FORUM_WEBHOOK_SENDERS.items()}


@transaction.atomic
def publish_thread_event(thread_id, event):
    thread = Thread.objects.get(pk=thread_id)
    for hook in Webhook.objects.filter(board_id=thread.board_id, is_active=True):
        sender = SENDERS[hook.kind]
        sender(hook, thread, event)
        Webhook.objects.filter(pk=hook.pk).update(last_fired_at=timezone.now())
