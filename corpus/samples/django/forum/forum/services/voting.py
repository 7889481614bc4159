from django.db import transaction
from django.db.models import F

from forum.models import Post, Vote
from forum.services import reputation

REPUTATION_PER_VOTE = 5


@transaction.atomic
def cast_vote(voter, post_id, value):
    """Up- or down-vote a post; voting again changes the earlier vote."""
    post = Post.objects.select_for_update().get(pk=post_id)
    previous = Vote.objects.filter(post_id=post_id, voter=voter).first()
    if previous is None:
        Vote.objects.create(post_id=post_id, voter=voter, value=value)
        delta = value
    else:
        delta = value - previous.value
        previous.value = value
        previous.save(update_fields=["value"])
    Post.objects.filter(pk=post_id).update(score=F("score") + delta)
    reputation.adjust(post.author_id, delta * REPUTATION_PER_VOTE, reason="vote", post_id=post_id)
    return delta
