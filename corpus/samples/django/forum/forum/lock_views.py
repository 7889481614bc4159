from django.contrib.auth.decorators import login_required, permission_required
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from forum.models import Thread
from forum.services.locking import ThreadEvents, fire, lock_thread


@permission_required("forum.change_thread")
@require_POST
def moderate_lock(request, thread_id):
    lock_thread(request.user, thread_id)
    return redirect("forum:thread-by-id", thread_id=thread_id)


@login_required
@require_POST
def lock_own_thread(request, thread_id):
    """An author closes their own thread to replies: one update, no moderation log."""
    thread = get_object_or_404(Thread, pk=thread_id, author=request.user)
    Thread.objects.filter(pk=thread.pk).update(is_locked=True)
    fire(ThreadEvents().locked, thread)
    return redirect("forum:thread-by-id", thread_id=thread.pk)
