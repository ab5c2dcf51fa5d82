"""Retries with exponential backoff for 429 and 5xx answers (and dropped connections)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

ATTEMPTS = 3
BASE_DELAY = 0.5
MAX_DELAY = 8.0


class RetryableError(RuntimeError):
    pass


def with_retries(
    attempt: Callable[[], Any],
    *,
    status_of: Callable[[Any], int] | None = None,
    retry_after: Callable[[Any], float | None] | None = None,
    attempts: int = ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """Run ``attempt`` up to ``attempts`` times; returns the last answer (or raises the last error)."""
    import httpx

    last: Any = None
    for number in range(attempts):
        delay = min(MAX_DELAY, BASE_DELAY * (2**number))
        try:
            last = attempt()
        except (RetryableError, httpx.TransportError, ConnectionError) as exc:
            if number == attempts - 1:
                raise
            last = exc
            sleep(delay)
            continue
        status = status_of(last) if status_of else 200
        if status == 429 or status >= 500:
            if number == attempts - 1:
                return last
            hinted = retry_after(last) if retry_after else None
            sleep(min(MAX_DELAY, hinted) if hinted is not None else delay)
            continue
        return last
    return last
