"""automem.digest gives hashlib's SHA-256, without hashlib's import of OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from automem.digest import sha256_hex


def test_the_digest_is_hashlibs_for_text_and_bytes():
    for data in ("", "project/path", "ünïcode ✓", "x" * 10_000):
        assert sha256_hex(data) == hashlib.sha256(data.encode("utf-8")).hexdigest()
        assert sha256_hex(data.encode("utf-8")) == hashlib.sha256(data.encode("utf-8")).hexdigest()


def test_hashing_an_id_does_not_load_openssl():
    probe = "import sys, automem.digest as d; d.sha256_hex('x'); print('_hashlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
