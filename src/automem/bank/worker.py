"""The detached autobank worker the Stop hook starts: one pass, a time limit, then exit."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

TIME_LIMIT_SECONDS = 300


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="automem.bank.worker")
    parser.add_argument("--harness", default="claude-code")
    parser.add_argument("--path")
    args = parser.parse_args(argv)
    signal.alarm(TIME_LIMIT_SECONDS)  # no process outlives its job
    try:
        from automem.bank.passes import run_pass

        paths = {args.harness: [Path(args.path)]} if args.path else None
        run_pass(paths=paths)
    except BaseException as exc:  # noqa: BLE001 - detached: nobody to show a traceback to
        from automem.log import log_error

        log_error("bank-worker", f"{type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
