from .base import TimeStamped
from .moderation import Flag, ModerationAction
from .notifications import MentionNotification, Notification, ReplyNotification
from .threads import Board, Post, PostRevision, Subscription, Tag, Thread, ThreadRead, Vote, Webhook
from .users import ApiToken, Badge, Ban, Profile, ReputationEvent, User, UserBadge

__all__ = [
    "ApiToken", "Badge", "Ban", "Board", "Flag", "MentionNotification", "ModerationAction", "Notification",
    "Post", "PostRevision", "Profile", "ReplyNotification", "ReputationEvent", "Subscription", "Tag", "Thread",
    "ThreadRead", "TimeStamped", "User", "UserBadge", "Vote", "Webhook",
]
