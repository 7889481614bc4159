"""blake2b, the digest the warm cache, the store and the generated code table key their entries
by, imported without hashlib.

Importing hashlib loads OpenSSL's module (`_hashlib`: about 11 million instructions, 1-2 ms at
the start of every command, before a scan's first fork), although hashlib's blake2b is CPython's
own `_blake2.blake2b`, never OpenSSL's: the same function, the same digests
(tests/test_startup.py checks both). Digests other than blake2b (sha256 in reports, lint
baselines and survey fingerprints) still come from hashlib, where they are needed.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without CPython's own module
    from hashlib import blake2b

__all__ = ["blake2b"]
