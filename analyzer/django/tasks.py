"""Task-queue calls in the walk that are not `.delay()`: a bound Celery task's `self.retry()`.

`self.retry(...)` inside a task declared with `bind=True` publishes the task's message again (a
queue effect, Celery's Task.retry sends it before raising Retry) and then raises, so nothing after
it on that path runs. It is not a statement."""

from __future__ import annotations

from . import effects_catalog as effects
from .values import Val

# Methods of a bound task that publish its message again.
RETRY_METHODS = {"retry"}


class TasksMixin:
    """Mixed into Walker (walker.py); uses emit_effect and the index."""

    def bound_task_call(self, node, written: str, method: str, args: list[Val]) -> Val | None:
        if method not in RETRY_METHODS or written != "self" or not self.in_bound_task():
            return None
        return self.emit_effect(node, "queue", "celery.Task.retry", args)

    def in_bound_task(self) -> bool:
        current = self.env.get("__qualname__")
        fn = self.ctx.index.functions.get(current.ref) if current is not None and current.ref else None
        if fn is None:
            return False
        for decorator in fn.decorators:
            head = decorator.split("(", 1)[0].rsplit(".", 1)[-1]
            if head in effects.TASK_DECORATORS and "bind=True" in decorator.replace(" ", ""):
                return True
        return False
