"""Run a command as a child in our place: its output passed through, its signals relayed, its exit code kept.

``supervise.run(argv, cwd=cwd, streams=Streams.current(), head=b"...")``:

1. the child's stdout and stderr pass through to ours as they come, and the tail of each is kept
   (``Finished.stdout``, ``Finished.stderr``) for whoever reads what the child said;
2. ``head``, when given, is written first on the child's stdin, followed by whatever the user piped
   in (a terminal stdin is not forwarded then), then EOF; with no head the child gets our stdin as it is;
3. its exit code is ours: a signal becomes 128+N, a missing command 127, one that cannot be
   executed 126 (the reason printed on stderr and kept as ``Finished.spawn_error``);
4. SIGINT, SIGTERM and SIGHUP sent to us reach the child (a Ctrl-C at the terminal reaches it once,
   not twice), and ``Finished.stopped`` says one was relayed;
5. a closed stdin, stdout or stderr is /dev/null.

Standard library only, and nothing of memory: ``jobs.py`` decides what goes in and what the run means.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, BinaryIO

STDOUT_KEEP = 4 * 1024 * 1024  # the tail of stdout kept for parsing (a json result is one object)
STDERR_KEEP = 64 * 1024
CHUNK = 65536
RELAYED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # what we pass on to the child
STOP_CODES = tuple(128 + sig for sig in RELAYED)  # the exit codes of a child one of them stopped


@dataclass
class Streams:
    """Our side of the child's stdin, stdout and stderr, as bytes."""

    stdin: BinaryIO
    stdout: BinaryIO
    stderr: BinaryIO
    stdin_is_tty: bool
    # /dev/null standing in for a closed stdin, given to the child as its stdin (fd 0 may be reused by then)
    child_stdin: BinaryIO | None = None

    @classmethod
    def current(
        cls,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
        stderr: BinaryIO | None = None,
        stdin_is_tty: bool | None = None,
    ) -> Streams:
        """The streams given, the process's own for the others (a closed one becomes /dev/null)."""
        # a closed stdin is not passed on as it is: fd 0 may since have been reused by a file we opened
        child_stdin = std_stream("stdin") if stdin is None and sys.stdin is None else None
        stdin = stdin if stdin is not None else child_stdin if child_stdin is not None else std_stream("stdin")
        stdout = stdout if stdout is not None else std_stream("stdout")
        stderr = stderr if stderr is not None else std_stream("stderr")
        if stdin_is_tty is None:
            try:
                stdin_is_tty = os.isatty(stdin.fileno())
            except (OSError, ValueError, AttributeError):
                stdin_is_tty = False
        return cls(stdin=stdin, stdout=stdout, stderr=stderr, stdin_is_tty=stdin_is_tty, child_stdin=child_stdin)


@dataclass
class Finished:
    """How one run ended."""

    exit_code: int
    stdout: str  # the tail of what it printed (STDOUT_KEEP)
    stderr: str  # the tail of its stderr (STDERR_KEEP), or why it could not start
    spawn_error: str  # why it could not start ("" when it ran)
    stopped: bool  # a signal sent to us was passed on to it
    seconds: float  # measured, from the spawn to the end of its output


def std_stream(name: str) -> BinaryIO:
    """sys.stdin/stdout/stderr as bytes; one that was closed (``<&-``, ``>&-``: Python sets it to None)
    becomes /dev/null, in ``sys`` too, so that nothing after the run (the CLI's last words) trips on it."""
    stream = getattr(sys, name)
    if stream is None:
        stream = open(os.devnull, "r" if name == "stdin" else "w", encoding="utf-8")  # noqa: SIM115
        setattr(sys, name, stream)
    return getattr(stream, "buffer", stream)


def run(argv: list[str], *, cwd: str, streams: Streams, head: bytes = b"") -> Finished:
    """Run ``argv`` in ``cwd`` to its end; see the module docstring."""
    started = time.monotonic()
    code, out_text, err_text, spawn_error, stopped = _spawn(
        argv,
        cwd,
        head,
        streams.stdin,
        streams.stdin_is_tty,
        streams.stdout,
        streams.stderr,
        child_stdin=streams.child_stdin,
    )
    return Finished(code, out_text, err_text, spawn_error, stopped, time.monotonic() - started)


def write(stream: BinaryIO, text: str) -> None:
    """``text`` on ``stream`` now; a stream that went away is no error."""
    try:
        stream.write(text.encode("utf-8"))
        stream.flush()
    except (OSError, ValueError):
        pass


class _Tee(threading.Thread):
    """Copy a child's pipe to our stream as it comes, keeping the tail for parsing."""

    def __init__(self, source: IO[bytes] | None, sink: BinaryIO | None, keep: int) -> None:
        super().__init__(daemon=True)
        self.source, self.sink, self.keep = source, sink, keep
        self.data = bytearray()

    def run(self) -> None:
        if self.source is None:
            return  # a child started without this pipe
        fd = self.source.fileno()
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                break
            if not chunk:
                break
            if self.sink is not None:
                try:
                    self.sink.write(chunk)
                    self.sink.flush()
                except (OSError, ValueError):
                    self.sink = None  # our reader went away; keep draining so the child never blocks
            self.data += chunk
            if len(self.data) > self.keep * 2:
                del self.data[: len(self.data) - self.keep]

    def text(self) -> str:
        return bytes(self.data[-self.keep :]).decode("utf-8", "replace")


def _feed(pipe: BinaryIO, head: bytes, user_stdin: BinaryIO | None) -> None:
    """The head, then the user's piped stdin, then EOF (a child that stops reading is fine)."""
    try:
        pipe.write(head)
        pipe.flush()
        if user_stdin is not None:
            while True:
                chunk = user_stdin.read(CHUNK) if not hasattr(user_stdin, "read1") else user_stdin.read1(CHUNK)
                if not chunk:
                    break
                pipe.write(chunk)
                pipe.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _spawn(
    argv, cwd, head: bytes, user_stdin, stdin_is_tty, stdout, stderr, child_stdin=None
) -> tuple[int, str, str, str, bool]:
    """(exit code, stdout tail, stderr tail, why it could not start, whether we were told to stop it)."""
    feed_stdin = bool(head)
    relay = _SignalRelay()
    try:
        try:
            child = subprocess.Popen(
                argv,
                cwd=cwd,
                stdin=subprocess.PIPE if feed_stdin else child_stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            message = f"automem run: command not found: {argv[0]}\n"
            write(stderr, message)
            return 127, "", message, message.strip(), relay.interrupted
        except PermissionError:
            message = f"automem run: permission denied: {argv[0]}\n"
            write(stderr, message)
            return 126, "", message, message.strip(), relay.interrupted
        except OSError as exc:  # no shebang, a binary for another machine (ENOEXEC), ...: 126 like a shell
            message = f"automem run: cannot execute {argv[0]}: {exc.strerror or exc}\n"
            write(stderr, message)
            return 126, "", message, message.strip(), relay.interrupted
        relay.attach(child)
        out, err = _Tee(child.stdout, stdout, STDOUT_KEEP), _Tee(child.stderr, stderr, STDERR_KEEP)
        out.start()
        err.start()
        if feed_stdin:
            threading.Thread(
                target=_feed, args=(child.stdin, head, None if stdin_is_tty else user_stdin), daemon=True
            ).start()
        rc = child.wait()
    finally:
        relay.restore()
    out.join()
    err.join()
    code = rc if rc >= 0 else 128 - rc
    return code, out.text(), err.text(), "", relay.interrupted


class _SignalRelay:
    """While the child runs, SIGINT/SIGTERM/SIGHUP sent to us are passed on to it.

    A Ctrl-C typed at the terminal is the exception: the terminal sends it to the whole foreground
    process group, the child included, and a second one would make many agents quit at once instead
    of stopping cleanly. A SIGINT sent to our process alone (``kill -INT``, a supervisor, no
    terminal) is forwarded. Installed before the child starts: a signal that arrives first is
    delivered as soon as the child exists.
    """

    SIGNALS = RELAYED

    def __init__(self) -> None:
        self.child: subprocess.Popen | None = None
        self.pending: list[int] = []
        self.received: list[int] = []
        self.previous: dict = {}
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self.previous[sig] = signal.signal(sig, self._handle)

    @property
    def interrupted(self) -> bool:
        return bool(self.received)

    def _handle(self, signum, _frame) -> None:
        self.received.append(signum)
        if self.child is None:
            self.pending.append(signum)  # the child did not exist to get it from the terminal either
            return
        if signum == signal.SIGINT and _terminal_foreground():
            return  # the terminal sent it to the child's process group as well
        self._send(signum)

    def _send(self, signum: int) -> None:
        if self.child is None:
            return
        try:
            self.child.send_signal(signum)
        except OSError:
            pass

    def attach(self, child: subprocess.Popen) -> None:
        self.child = child
        for signum in self.pending:
            self._send(signum)
        self.pending.clear()

    def restore(self) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


def _terminal_foreground() -> bool:
    """Whether our process group is the foreground of our controlling terminal (the child shares the group)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False  # no controlling terminal: nobody sent the child a Ctrl-C
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)
