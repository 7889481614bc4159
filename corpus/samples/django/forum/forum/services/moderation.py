"""Moderator tools."""
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.mail import mail_admins, send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from forum.models import ApiToken, Ban, Flag, ModerationAction, Post
from forum.services import reputation
from forum.utils import timed_atomic

User = get_user_model()

REMOVAL_PENALTY = 20
AUTO_HIDE_THRESHOLD = 3


class ModerationService:
    def __init__(self, moderator):
        self.moderator = moderator

    def _log(self, action, post=None, user_id=None, note=""):
        return ModerationAction.objects.create(moderator=self.moderator, action=action, target_post=post, target_user_id=user_id, note=note)

    def _resolve_flags(self, post, note):
        return Flag.objects.filter(post=post, status=Flag.Status.OPEN).update(status=Flag.Status.UPHELD, resolved_by=self.moderator, resolution_note=note)

    @transaction.atomic
    def remove_post(self, post_id, note=""):
        post = Post.objects.select_for_update().get(pk=post_id)
        post.is_removed = True
        post.save(update_fields=["is_removed", "updated"])
        with transaction.atomic():
            self._resolve_flags(post, note)
            self._log("remove_post", post=post, note=note)
        reputation.adjust(post.author_id, -REMOVAL_PENALTY, reason="post removed", post_id=post_id)
        return post

    @classmethod
    def _revoke_tokens(cls, user_id):
        ApiToken.objects.filter(user_id=user_id).delete()

    @classmethod
    def ban_user(cls, moderator, user_id, reason, days=None):
        user = User.objects.get(pk=user_id)
        until = timezone.now() + timedelta(days=days) if days else None
        with transaction.atomic():
            Ban.objects.update_or_create(user_id=user_id, defaults={"reason": reason, "banned_by": moderator, "until": until})
            Post.objects.filter(author_id=user_id, created__gte=timezone.now() - timedelta(days=1)).update(is_removed=True)
            cls._revoke_tokens(user_id)
            cls(moderator)._log("ban", user_id=user_id, note=reason)
            transaction.on_commit(lambda: send_mail("Your account has been suspended", reason, None, [user.email]))


def flag_post(reporter, post_id, reason):
    with timed_atomic("flag_post"):
        flag, created = Flag.objects.get_or_create(post_id=post_id, reporter=reporter, defaults={"reason": reason})
        if created:
            open_flags = Flag.objects.filter(post_id=post_id, status=Flag.Status.OPEN).count()
            if open_flags >= AUTO_HIDE_THRESHOLD:
                Post.objects.filter(pk=post_id).update(is_removed=True)
                mail_admins(f"Post {post_id} hidden after {open_flags} flags", reason)
    return flag


@transaction.atomic
def purge_spam(moderator, phrase, since):
    spam = Post.objects.filter(Q(body__contains=phrase) & Q(created__gte=since) & ~Q(author__profile__is_trusted=True))
    ids = list(spam.values_list("pk", flat=True))
    Post.objects.filter(pk__in=ids).update(is_removed=True)
    ModerationAction.objects.bulk_create([ModerationAction(moderator=moderator, action="purge", target_post_id=pk, note=phrase) for pk in ids])
    return len(ids)
