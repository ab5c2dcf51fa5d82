"""The ``automem`` console script.

``automem hook ...`` goes straight to the stdlib-only capture entry point, so
a hook pays neither for click nor for the rest of the CLI; every other
command goes to the click CLI in cli.py.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from automem.capture.hook import main as hook_main

        return hook_main(argv[1:])
    from automem.cli import cli

    return cli.main(args=argv, prog_name="automem", standalone_mode=True) or 0


if __name__ == "__main__":
    sys.exit(main())
