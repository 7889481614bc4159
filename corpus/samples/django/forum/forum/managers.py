from django.db import models
from django.db.models import F


class ThreadQuerySet(models.QuerySet):
    def visible(self):
        return self.filter(is_hidden=False)

    def in_board(self, board):
        return self.filter(board=board)

    def bump(self, thread_id, when):
        """Count one more reply and move the thread to the top of its board."""
        return self.filter(pk=thread_id).update(reply_count=F("reply_count") + 1, last_activity_at=when)


class PostManager(models.Manager):
    def public(self):
        return super().get_queryset().filter(is_removed=False)

    def by_author(self, user):
        return self.get_queryset().filter(author=user)
