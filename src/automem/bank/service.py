"""`automem bank watch` (the service loop) and `automem bank status`."""

from __future__ import annotations

import signal
import threading
from datetime import datetime, timezone
from typing import Callable

from automem import config as config_mod
from automem.bank.passes import run_pass
from automem.harness import READERS
from automem.home import Home
from automem.index.bank_state import counts
from automem.index.db import connect
from automem.log import log_error

DRAIN_INTERVAL = 2.0


def watch(interval: float = 30.0, *, once: bool = False, echo: Callable[[str], None] = print) -> None:
    """A pass at start, then every ``interval`` seconds (every 2 s while a backlog drains) until SIGTERM/SIGINT."""
    stop = threading.Event()

    def _stop(signum, _frame) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stop.is_set():
            try:
                report = run_pass(wait=True)
                if report.banked or report.rewritten or report.errors:
                    echo(
                        f"{datetime.now().strftime('%H:%M:%S')} banked {report.banked}, rewrote {report.rewritten}"
                        + (f", {len(report.errors)} error(s)" if report.errors else "")
                    )
                delay = DRAIN_INTERVAL if report.backlog else interval
            except Exception as exc:  # noqa: BLE001 - the service keeps going; the log says why
                log_error("bank-watch", f"{type(exc).__name__}: {exc}")
                delay = interval
            if once:
                break
            stop.wait(delay)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    echo("automem bank watch: stopped")


def status(home: Home | None = None) -> dict:
    home = home or Home.current()
    cfg = config_mod.load(home)
    conn = connect(home)
    try:
        tracked, banked, windows = counts(conn)
    finally:
        conn.close()
    harnesses = {}
    for name, reader in READERS.items():
        try:
            transcripts = len(reader.discover())
        except Exception:  # noqa: BLE001 - a broken harness folder shows as zero
            transcripts = 0
        start = windows.get(name)
        harnesses[name] = {
            "enabled": name in cfg.autobank_harnesses,
            "transcripts": transcripts,
            "tracked": tracked.get(name, 0),
            "banked": banked.get(name, 0),
            "window_start": datetime.fromtimestamp(start, timezone.utc).strftime("%Y-%m-%d") if start else None,
        }
    return {"auto_bank": cfg.auto_bank, "harnesses": harnesses}
