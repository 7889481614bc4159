import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from forum.managers import PostManager, ThreadQuerySet

from .base import TimeStamped


class Board(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True)
    is_private = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField(default=0)


class Tag(models.Model):
    name = models.CharField(max_length=40, unique=True)
    usage_count = models.PositiveIntegerField(default=0)


class Thread(TimeStamped):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    board = models.ForeignKey(Board, related_name="threads", on_delete=models.PROTECT)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="threads", on_delete=models.PROTECT)
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80)
    tags = models.ManyToManyField(Tag, related_name="threads", blank=True)
    is_locked = models.BooleanField(default=False)
    is_pinned = models.BooleanField(default=False)
    is_hidden = models.BooleanField(default=False)
    reply_count = models.PositiveIntegerField(default=0)
    view_count = models.PositiveIntegerField(default=0)
    last_activity_at = models.DateTimeField(default=timezone.now)

    objects = ThreadQuerySet.as_manager()

    class Meta:
        permissions = [("merge_thread", "Can merge threads")]


class Post(TimeStamped):
    thread = models.ForeignKey(Thread, related_name="posts", on_delete=models.CASCADE)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="posts", on_delete=models.PROTECT)
    parent = models.ForeignKey("self", null=True, blank=True, related_name="replies", on_delete=models.CASCADE)
    body = models.TextField()
    score = models.IntegerField(default=0)
    is_removed = models.BooleanField(default=False)
    edited_at = models.DateTimeField(null=True, blank=True)

    objects = PostManager()


class PostRevision(models.Model):
    post = models.ForeignKey(Post, related_name="revisions", on_delete=models.CASCADE)
    body = models.TextField()
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)


class Vote(models.Model):
    post = models.ForeignKey(Post, related_name="votes", on_delete=models.CASCADE)
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="votes", on_delete=models.CASCADE)
    value = models.SmallIntegerField(choices=[(1, "up"), (-1, "down")])

    class Meta:
        unique_together = ("post", "voter")


class Subscription(models.Model):
    thread = models.ForeignKey(Thread, related_name="subscriptions", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        unique_together = [("thread", "user")]


class ThreadRead(models.Model):
    thread = models.ForeignKey(Thread, related_name="+", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    read_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["thread", "user"], name="one_read_marker_per_user")]


class Webhook(models.Model):
    board = models.ForeignKey(Board, related_name="webhooks", on_delete=models.CASCADE)
    kind = models.CharField(max_length=20)
    url = models.URLField()
    secret = models.CharField(max_length=64, blank=True)
    is_active = models.BooleanField(default=True)
    last_fired_at = models.DateTimeField(null=True, blank=True)
