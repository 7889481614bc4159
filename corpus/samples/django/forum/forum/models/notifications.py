from django.conf import settings
from django.db import models
from django.utils import timezone
from polymorphic.models import PolymorphicModel

from .threads import Post


class Notification(PolymorphicModel):
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="notifications", on_delete=models.CASCADE)
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    digested_at = models.DateTimeField(null=True, blank=True)


class ReplyNotification(Notification):
    post = models.ForeignKey(Post, related_name="+", on_delete=models.CASCADE)


class MentionNotification(Notification):
    post = models.ForeignKey(Post, related_name="+", on_delete=models.CASCADE)
    mentioned_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
