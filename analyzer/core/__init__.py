"""Language-neutral verdicts over IR (docs/VERDICTS.md). Rules here never look at syntax."""

from .classify import Settings, analyze

__all__ = ["Settings", "analyze"]
