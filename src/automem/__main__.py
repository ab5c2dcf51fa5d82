"""The ``automem`` console script.

``automem hook ...`` goes straight to the stdlib-only capture entry point, so
a hook pays neither for click nor for the rest of the CLI. ``automem mcp``
(no options) goes straight to the stdlib-only MCP server the same way, since a
client waits on its start-up. Every other command goes to the click CLI in cli.py.
"""

from __future__ import annotations

import os
import sys

# A capture hook ends with os._exit once its output is flushed: tearing down the
# interpreter (module dicts, compiled patterns, GC) is ~3 ms of a ~25 ms hook, and it
# has nothing left to clean up (spool and log writes are unbuffered os.write calls).
# In-process callers that must survive main() set this to False.
EXIT_FAST = True


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from automem.capture.hook import CAPTURE_EVENTS
        from automem.capture.hook import main as hook_main

        code = hook_main(argv[1:])
        if EXIT_FAST and argv[1:2] and argv[1] in CAPTURE_EVENTS:
            _exit_now(code)
        return code
    if argv == ["mcp"]:
        from automem.mcp_stdio import serve

        serve()
        return 0
    from automem.cli import cli

    return cli.main(args=argv, prog_name="automem", standalone_mode=True) or 0


def _exit_now(code: int) -> None:
    patterns = sys.modules.get("automem.regex_cache")
    if patterns is not None:
        patterns.flush()  # os._exit skips atexit: the patterns this hook compiled are kept for the next
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed or broken pipe must not change the exit code
            pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
