from django.apps import AppConfig


class ForumConfig(AppConfig):
    name = "forum"

    def ready(self):
        from forum import signals  # noqa: F401
