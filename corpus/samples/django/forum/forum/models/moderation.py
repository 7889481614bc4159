from django.conf import settings
from django.db import models

from .base import TimeStamped
from .threads import Post


class Flag(TimeStamped):
    class Status(models.TextChoices):
        OPEN = "open"
        UPHELD = "upheld"
        DISMISSED = "dismissed"

    post = models.ForeignKey(Post, related_name="flags", on_delete=models.CASCADE)
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="flags_raised", on_delete=models.CASCADE)
    reason = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, related_name="+", on_delete=models.SET_NULL)
    resolution_note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["post", "reporter"], name="one_flag_per_reporter")]


class ModerationAction(TimeStamped):
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="moderation_actions", on_delete=models.PROTECT)
    action = models.CharField(max_length=30)
    target_post = models.ForeignKey(Post, null=True, blank=True, related_name="+", on_delete=models.SET_NULL)
    target_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, related_name="+", on_delete=models.SET_NULL)
    note = models.TextField(blank=True)
