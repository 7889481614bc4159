"""Reputation bookkeeping."""
from django.db.models import F

from forum.models import Profile, ReputationEvent


def adjust(user_id, delta, reason, post_id=None):
    Profile.objects.filter(user_id=user_id).update(reputation=F("reputation") + delta)
    _record_event(user_id, delta, reason, post_id)


def _record_event(user_id, delta, reason, post_id):
    ReputationEvent.objects.create(user_id=user_id, delta=delta, reason=reason, post_id=post_id)
