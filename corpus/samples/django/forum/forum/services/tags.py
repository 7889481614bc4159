from django.db import transaction

from forum.models import Tag


@transaction.atomic
def retag_thread(thread, add_names=(), remove_names=(), replace=False):
    if replace:
        thread.tags.clear()
    stale = list(Tag.objects.filter(name__in=remove_names))
    if stale:
        thread.tags.remove(*stale)
    for name in add_names:
        tag, _ = Tag.objects.get_or_create(name=name.strip().lower())
        thread.tags.add(tag)
