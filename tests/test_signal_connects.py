"""project.connect_calls finds the `.connect(` calls that findall over the whole text finds (the
search it replaces tried the pattern at every character): compared on hand-made texts, on
generated ones, and on every sample and fixture module, for both patterns signals() reads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.django.project import _CONNECT_TO_ALL, _CONNECT_WITH_SENDER, connect_calls
from conftest import django_sample_texts

PATTERNS = [_CONNECT_WITH_SENDER, _CONNECT_TO_ALL]

TEXTS = [
    "post_save.connect(audit, sender=Order)",
    "signals.order_paid.connect(notify)",
    "(signal).connect(f)",             # no name right before the dot
    ".connect(f)",                     # nothing before it
    "a.connect.b.connect(f)",          # the run before holds an earlier `.connect`
    "s.connect(f, sender=M.connect(g, sender=B)",  # the sender's run ends at a `.connect(`
    "s.connect(f) t.connect(g, weak=False)",
    "é.connect(ü, sender=ñ)",          # word characters beyond ASCII
    "²a.connect(b)",                   # a digit that is not a decimal one
    "a .connect(f)",
    "a.connect( f , dispatch_uid = 'x' )",
    "a.connect(f, sender=M)b.connect(g)",
    "_.connect(_)",
    "x.connect(f, sender=M)\n    y.connect(g, sender=N)\n",
    "a.connect(f, other=1)",           # neither pattern
    "a.connect(.connect(f)",
    "m.connect(f, sender=A)).connect(g)",
    # a module wiring receivers the way apps.py / signals.py modules do
    "from django.db.models import signals\n\n\ndef ready(self):\n"
    "    signals.post_save.connect(handlers.order_saved, sender=models.Order)\n"
    "    signals.post_delete.connect(handlers.order_deleted, sender=models.Order, dispatch_uid='x')\n"
    "    user_logged_in.connect(update_last_login, dispatch_uid='update_last_login')\n"
    "    request_finished.connect(close_old_connections)\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_hand_made_texts(text):
    for pattern in PATTERNS:
        assert connect_calls(pattern, text) == pattern.findall(text)


_PIECES = st.sampled_from(["a", "b.", ".", ".connect(", "connect", "f", ",", " sender=", "sender", "M", ")", "(",
                           " ", "\n", "weak=", "dispatch_uid=", "'x'", "é", "_", "²", "=", "1"])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_generated_texts(text):
    for pattern in PATTERNS:
        assert connect_calls(pattern, text) == pattern.findall(text)


def test_every_sample_and_fixture_module():
    modules = 0
    for path, text in django_sample_texts():
        for pattern in PATTERNS:
            assert connect_calls(pattern, text) == pattern.findall(text), path
        modules += 1
    assert modules > 100
