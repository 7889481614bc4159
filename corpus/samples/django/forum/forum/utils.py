import logging
import re
import time
from contextlib import contextmanager

from django.db import transaction

from forum.models import ReplyNotification

logger = logging.getLogger(__name__)

MENTION_RE = re.compile(r"@([\w.+-]{3,30})")


@contextmanager
def timed_atomic(label, using=None):
    """transaction.atomic that logs how long the transaction took."""
    started = time.perf_counter()
    with transaction.atomic(using=using):
        yield
    logger.info("transaction %s took %.1f ms", label, (time.perf_counter() - started) * 1000)


def extract_mentions(text):
    return sorted(set(MENTION_RE.findall(text)))[:10]


def notify_reply(post, thread):
    """Tell the thread's author about a reply by someone else."""
    if thread.author_id != post.author_id:
        ReplyNotification.objects.create(recipient_id=thread.author_id, post=post)
