"""Signal receivers, connected in ForumConfig.ready()."""
from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from forum.models import Post, PostRevision, Profile


@receiver(post_save, sender=Post)
def keep_revision(sender, instance, **kwargs):
    """Moderators can see every saved version of a post."""
    PostRevision.objects.create(post=instance, body=instance.body, editor_id=instance.author_id)


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def create_profile(sender, instance, created, **kwargs):
    if created:
        Profile.objects.create(user=instance)
