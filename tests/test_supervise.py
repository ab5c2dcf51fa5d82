"""supervise.py on its own: a child's output passed through and kept, its stdin fed, its exit code ours.

The whole `automem run` (memory in, signals relayed from a terminal, a journal entry out) is tests/test_jobs.py;
these call the module in process, with in-memory streams.
"""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
from pathlib import Path

from automem import supervise

SOURCE = Path(supervise.__file__)


def _streams(stdin: bytes = b"") -> tuple[supervise.Streams, io.BytesIO, io.BytesIO]:
    out, err = io.BytesIO(), io.BytesIO()
    return supervise.Streams(stdin=io.BytesIO(stdin), stdout=out, stderr=err, stdin_is_tty=False), out, err


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_supervision_imports_the_standard_library_only():
    """Running a child knows nothing of memory: no store, index, home, journal or any other automem module."""
    imported = set()
    for node in ast.walk(ast.parse(SOURCE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            imported.add((node.module or "").split(".")[0])
    assert imported, "the walk found no imports"
    assert sorted(imported - sys.stdlib_module_names) == []


def test_importing_supervision_loads_no_other_automem_module():
    code = "import sys, json, automem.supervise; print(json.dumps(sorted(m for m in sys.modules if 'automem' in m)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == ["automem", "automem.supervise"]


def test_output_passes_through_and_its_tail_is_kept():
    streams, out, err = _streams()
    done = supervise.run(
        _python("import sys; print('to stdout'); print('to stderr', file=sys.stderr); sys.exit(3)"),
        cwd=str(SOURCE.parent),
        streams=streams,
    )
    assert (done.exit_code, done.spawn_error, done.stopped) == (3, "", False)
    assert out.getvalue().decode().splitlines() == ["to stdout"] and done.stdout.splitlines() == ["to stdout"]
    assert err.getvalue().decode().splitlines() == ["to stderr"] and done.stderr.splitlines() == ["to stderr"]
    assert done.seconds > 0


def test_the_head_comes_first_on_stdin_then_the_piped_input():
    streams, out, _err = _streams(b"piped line\n")
    done = supervise.run(
        _python("import sys; sys.stdout.write(sys.stdin.read())"), cwd=".", streams=streams, head=b"head line\n"
    )
    assert done.exit_code == 0
    assert out.getvalue() == b"head line\npiped line\n"


def test_a_terminal_stdin_is_not_forwarded_after_the_head():
    streams, out, _err = _streams(b"typed at the terminal\n")
    streams.stdin_is_tty = True
    supervise.run(_python("import sys; sys.stdout.write(sys.stdin.read())"), cwd=".", streams=streams, head=b"head\n")
    assert out.getvalue() == b"head\n"


def test_a_missing_command_exits_127_and_one_that_cannot_run_126(tmp_path):
    streams, _out, err = _streams()
    missing = supervise.run([str(tmp_path / "no-such-agent")], cwd=str(tmp_path), streams=streams)
    assert missing.exit_code == 127 and "command not found" in missing.spawn_error
    assert err.getvalue().decode() == missing.stderr
    script = tmp_path / "not-executable"
    script.write_text("echo hi\n")
    denied = supervise.run([str(script)], cwd=str(tmp_path), streams=_streams()[0])
    assert denied.exit_code == 126 and "permission denied" in denied.spawn_error


def test_a_child_killed_by_a_signal_exits_128_plus_its_number():
    done = supervise.run(
        _python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)"), cwd=".", streams=_streams()[0]
    )
    assert done.exit_code in supervise.STOP_CODES and done.exit_code == 128 + 15
    assert done.stopped is False  # nobody sent us anything


def test_the_signal_handlers_are_put_back_after_the_run():
    import signal

    before = {sig: signal.getsignal(sig) for sig in supervise.RELAYED}
    supervise.run(_python("pass"), cwd=".", streams=_streams()[0])
    assert {sig: signal.getsignal(sig) for sig in supervise.RELAYED} == before
