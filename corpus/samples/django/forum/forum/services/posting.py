"""Creating and editing threads and posts."""
import logging

import httpx
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db import transaction as tx
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify

from forum.models import Board, MentionNotification, Post, Profile, Tag, Thread, ThreadRead
from forum.tasks import fan_out_new_thread
from forum.utils import extract_mentions, notify_reply

logger = logging.getLogger(__name__)
User = get_user_model()


@transaction.atomic
def create_thread(author, board_slug, title, body, tag_names=()):
    board = Board.objects.get(slug=board_slug)
    thread = Thread.objects.create(board=board, author=author, title=title, slug=slugify(title)[:80])
    opening_post = Post(thread=thread, author=author, body=body)
    opening_post.save()
    for name in tag_names:
        tag, _ = Tag.objects.get_or_create(name=name.strip().lower())
        thread.tags.add(tag)
    Profile.objects.filter(user=author).update(post_count=F("post_count") + 1)
    transaction.on_commit(lambda: fan_out_new_thread.delay(thread.pk))
    return thread


@tx.atomic
def reply(author, thread_id, body, parent_id=None):
    now = timezone.now()
    thread = Thread.objects.visible().filter(is_locked=False).select_for_update().get(pk=thread_id)
    post = Post.objects.create(thread=thread, author=author, parent_id=parent_id, body=body)
    Thread.objects.bump(thread_id, now)
    notify_reply(post, thread)
    mentions = extract_mentions(body)
    if mentions:
        for user in User.objects.filter(username__in=mentions).exclude(pk=author.pk):
            MentionNotification.objects.create(recipient=user, post=post, mentioned_by=author)
    logger.info("reply %s in thread %s", post.pk, thread_id)
    return post


@transaction.atomic
def edit_post(editor, post_id, new_body):
    post = Post.objects.select_for_update().get(pk=post_id, author=editor)
    verdict = httpx.post(settings.SPAM_CHECK_URL, json={"text": new_body, "author": editor.pk}, timeout=5).json()
    post.body = new_body
    post.edited_at = timezone.now()
    post.is_removed = bool(verdict.get("spam"))
    post.save(update_fields=["body", "edited_at", "is_removed", "updated"])
    return post


@transaction.atomic
def record_view(thread_id, user_id=None):
    Thread.objects.filter(pk=thread_id).update(view_count=F("view_count") + 1)
    if user_id is not None:
        ThreadRead.objects.update_or_create(thread_id=thread_id, user_id=user_id, defaults={"read_at": timezone.now()})
