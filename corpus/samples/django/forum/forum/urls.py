from django.urls import path

from forum import views

app_name = "forum"

urlpatterns = [
    path("b/<slug:slug>/", views.board_index, name="board"),
    path("b/<slug:slug>/new/", views.new_thread, name="new-thread"),
    path("t/<uuid:public_id>/", views.thread_detail, name="thread"),
    path("t/<int:thread_id>/", views.thread_by_id, name="thread-by-id"),
    path("t/<int:thread_id>/reply/", views.reply_view, name="reply"),
    path("t/<int:thread_id>/subscribe/", views.subscribe, name="subscribe"),
    path("t/<int:thread_id>/pin/", views.pin_thread, name="pin"),
    path("t/<int:source_id>/merge/<int:target_id>/", views.MergeThreadsView.as_view(), name="merge"),
    path("p/<int:post_id>/vote/", views.vote_view, name="vote"),
    path("me/", views.ProfileView.as_view(), name="profile"),
    path("me/notifications/read/", views.mark_notifications_read, name="notifications-read"),
    path("api/tags/", views.tag_autocomplete, name="tag-autocomplete"),
]
