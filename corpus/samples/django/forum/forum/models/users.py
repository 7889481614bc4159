from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

from .base import TimeStamped


class User(AbstractUser):
    email = models.EmailField(unique=True)
    display_name = models.CharField(max_length=60, blank=True)


class Profile(TimeStamped):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="profile", on_delete=models.CASCADE)
    bio = models.TextField(blank=True)
    avatar = models.CharField(max_length=255, blank=True)
    reputation = models.IntegerField(default=0)
    post_count = models.PositiveIntegerField(default=0)
    is_trusted = models.BooleanField(default=False)


class Ban(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="ban", on_delete=models.CASCADE)
    reason = models.TextField()
    banned_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    until = models.DateTimeField(null=True, blank=True)


class ApiToken(models.Model):
    key = models.CharField(max_length=40, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="api_tokens", on_delete=models.CASCADE)
    created = models.DateTimeField(default=timezone.now)


class Badge(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=60)
    awarded_count = models.PositiveIntegerField(default=0)


class UserBadge(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="badges", on_delete=models.CASCADE)
    badge = models.ForeignKey(Badge, on_delete=models.CASCADE)
    awarded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "badge"], name="badge_once_per_user")]


class ReputationEvent(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    delta = models.IntegerField()
    reason = models.CharField(max_length=40)
    post = models.ForeignKey("forum.Post", null=True, blank=True, related_name="+", on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
