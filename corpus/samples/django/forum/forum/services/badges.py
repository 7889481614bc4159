from django.db import transaction
from django.db.models import F

from forum.models import Badge, UserBadge


@transaction.atomic
def award_badge(badge_id, user_ids):
    UserBadge.objects.bulk_create([UserBadge(user_id=user_id, badge_id=badge_id) for user_id in user_ids], ignore_conflicts=True)
    Badge.objects.filter(pk=badge_id).update(awarded_count=F("awarded_count") + len(user_ids))
