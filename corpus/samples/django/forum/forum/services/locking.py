"""Locking threads, and the event subscribers hear about it.

An event runs once the change it announces is committed: `fire` defers it to the commit when a
transaction is open, and runs it at once otherwise. Either way the event's queries run outside
any transaction (in autocommit).
"""
import logging

from django.db import transaction

from forum.models import ModerationAction, Thread

logger = logging.getLogger(__name__)


def fire(handler, *args):
    """Run `handler(*args)` now, or when the open transaction commits."""
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: handler(*args))
    else:
        handler(*args)


class ThreadEvents:
    """What subscribers of a thread are told."""

    def locked(self, thread):
        logger.info("thread %r on board %s is locked", thread.title, thread.board.name)


@transaction.atomic
def lock_thread(moderator, thread_id):
    """A moderator locks a thread: the lock and its log entry commit together."""
    thread = Thread.objects.select_for_update().get(pk=thread_id)
    thread.is_locked = True
    thread.save(update_fields=["is_locked", "updated"])
    ModerationAction.objects.create(moderator=moderator, action="lock_thread", note=thread.title)
    fire(ThreadEvents().locked, thread)
    return thread
