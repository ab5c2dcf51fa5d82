"""SHA-256 hex digests without loading OpenSSL.

``hashlib`` loads OpenSSL's libcrypto when imported (~2.5 CPU-ms of a hook or worker that hashes a few short
strings). CPython also builds its own SHA-256 as a module (``_sha2`` from 3.12, ``_sha256`` before), the way
``random`` takes ``_sha512``: the same digest. hashlib where the interpreter has neither.
"""

from __future__ import annotations

try:
    from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
    except ImportError:
        from hashlib import sha256


def sha256_hex(data: bytes | str) -> str:
    """The SHA-256 of data (a str as UTF-8), in hex."""
    return sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()
