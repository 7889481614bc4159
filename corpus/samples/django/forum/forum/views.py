import logging

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Q
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import require_POST

from forum.forms import ProfileForm, ReplyForm, ThreadForm
from forum.models import Board, Notification, Post, Profile, Subscription, Tag, Thread
from forum.services import voting
from forum.services.moderation import ModerationService
from forum.services.posting import create_thread, record_view, reply

logger = logging.getLogger(__name__)
User = get_user_model()


def board_index(request, slug):
    board = get_object_or_404(Board, slug=slug)
    threads = Thread.objects.visible().in_board(board).order_by("-is_pinned", "-last_activity_at")[:50]
    return render(request, "forum/board.html", {"board": board, "threads": threads})


def tag_autocomplete(request):
    prefix = request.GET.get("q", "").lower()
    names = list(Tag.objects.filter(name__startswith=prefix).order_by("-usage_count").values_list("name", flat=True)[:10])
    return JsonResponse({"tags": names})


async def thread_detail(request, public_id):
    user = await request.auser()
    thread = await Thread.objects.aget(public_id=public_id, is_hidden=False)
    posts = [post async for post in Post.objects.public().filter(thread=thread).order_by("created")]
    await sync_to_async(record_view)(thread.pk, user.pk if user.is_authenticated else None)
    return render(request, "forum/thread.html", {"thread": thread, "posts": posts})


def thread_by_id(request, thread_id):
    thread = get_object_or_404(Thread, pk=thread_id, is_hidden=False)
    return redirect("forum:thread", public_id=thread.public_id)


async def mark_notifications_read(request):
    user = await request.auser()
    count = await Notification.objects.filter(recipient=user, read_at__isnull=True).aupdate(read_at=timezone.now())
    return JsonResponse({"marked": count})


async def dismiss_notification(request, notification_id):
    user = await request.auser()
    notification = await Notification.objects.non_polymorphic().aget(pk=notification_id, recipient=user)
    notification.read_at = timezone.now()
    await notification.asave(update_fields=["read_at"])
    return JsonResponse({"ok": True})


@login_required
@require_POST
def new_thread(request, slug):
    form = ThreadForm(request.POST)
    if not form.is_valid():
        return render(request, "forum/new_thread.html", {"form": form}, status=400)
    thread = create_thread(request.user, slug, form.cleaned_data["title"], form.cleaned_data["body"], form.tag_names())
    return redirect("forum:thread", public_id=thread.public_id)


@login_required
@require_POST
def reply_view(request, thread_id):
    form = ReplyForm(request.POST)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors}, status=400)
    post = reply(request.user, thread_id, form.cleaned_data["body"], form.cleaned_data.get("parent_id"))
    return JsonResponse({"id": post.pk}, status=201)


@login_required
@require_POST
def vote_view(request, post_id):
    value = 1 if request.POST.get("direction") == "up" else -1
    delta = voting.cast_vote(request.user, post_id, value)
    return JsonResponse({"delta": delta})


@login_required
@require_POST
@transaction.atomic
def subscribe(request, thread_id):
    subscription, created = Subscription.objects.get_or_create(thread_id=thread_id, user=request.user)
    return JsonResponse({"subscribed": True, "new": created})


@permission_required("forum.change_thread")
@require_POST
def pin_thread(request, thread_id):
    with transaction.atomic():
        thread = Thread.objects.select_for_update().get(pk=thread_id)
        Thread.objects.filter(pk=thread_id).update(is_pinned=not thread.is_pinned)
        cache.delete(f"board:{thread.board_id}:pinned")
    return redirect("forum:thread-by-id", thread_id=thread_id)


@method_decorator(transaction.atomic, name="dispatch")
class MergeThreadsView(PermissionRequiredMixin, View):
    permission_required = "forum.merge_thread"

    def post(self, request, source_id, target_id):
        threads = Thread.objects.select_for_update().filter(Q(pk=source_id) | Q(pk=target_id))
        if len(threads) != 2:
            raise Http404("both threads must exist")
        moved = Post.objects.filter(thread_id=source_id).update(thread_id=target_id)
        Thread.objects.filter(pk=target_id).update(reply_count=F("reply_count") + moved, last_activity_at=timezone.now())
        Thread.objects.filter(pk=source_id).delete()
        ModerationService(request.user)._log("merge", note=f"thread {source_id} merged into {target_id}")
        return redirect("forum:thread-by-id", thread_id=target_id)


class ProfileView(LoginRequiredMixin, View):
    def get(self, request):
        return render(request, "forum/profile.html", {"profile": request.user.profile, "form": ProfileForm()})

    @method_decorator(transaction.atomic)
    def post(self, request):
        form = ProfileForm(request.POST, request.FILES)
        if not form.is_valid():
            return render(request, "forum/profile.html", {"form": form}, status=400)
        profile = request.user.profile
        profile.bio = form.cleaned_data["bio"]
        profile.save(update_fields=["bio", "updated"])
        User.objects.filter(pk=request.user.pk).update(display_name=form.cleaned_data["display_name"])
        avatar = form.cleaned_data.get("avatar")
        if avatar:
            path = default_storage.save(f"avatars/{request.user.pk}/{avatar.name}", avatar)
            Profile.objects.filter(pk=profile.pk).update(avatar=path)
        return redirect("forum:profile")
