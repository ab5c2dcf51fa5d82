"""log/automem.log: one line per thing a hook (or a detached worker) swallowed.

Stdlib only, never raises. Lines are redacted with the fast tier and capped,
and the file is rotated at 1 MB so a misbehaving harness cannot fill a disk.
"""

from __future__ import annotations

import os
import time

from automem.capture.paths import log_path

MAX_LINE = 2000
MAX_LOG_BYTES = 1_000_000


def log_error(where: str, message: object, *, home: str | None = None) -> None:
    try:
        from automem.redact.fast import redact_fast

        text = " ".join(str(message).split())  # one line, whatever the message held
        text = redact_fast(text)[:MAX_LINE]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} pid={os.getpid()} {where}: {text}\n".encode("utf-8", "replace")
        path = log_path(home)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        try:
            if os.stat(path).st_size > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001 - the log of last resort has nowhere to report to
        pass
