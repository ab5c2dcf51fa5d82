"""The hook never breaks a session and the spool never loses or tears a line: concurrency, kills, caps,
rotation, malformed payloads, unwritable and full homes, the config switch."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automem.capture import hook, spool
from automem.capture.paths import spool_path
from automem.capture.switches import capture_enabled

SESSION = "4c1d9a7e-robust-4f0b-8d21-6e3a5b7c9d02"


def pre_tool(command: str, session: str = SESSION) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": "/home/dev/app",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }


def whole_lines(path: Path) -> list[dict]:
    """Every line of a spool file, each required to be whole and valid JSON."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# --- concurrency -----------------------------------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import os, sys, time
    from automem.capture import spool
    writer, count, home, go = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if len(sys.argv) > 5:
        spool.MAX_SPOOL_BYTES = int(sys.argv[5])
    open(go + str(writer), "w").close()
    while not os.path.exists(go):  # start together, once every writer is ready
        time.sleep(0.001)
    for seq in range(count):
        record = {{"v": 1, "kind": "test", "writer": writer, "seq": seq, "pad": "x" * (seq % 97)}}
        spool.append("{session}", [record], home)
""").format(session=SESSION)


def run_writers(home: Path, writers: int, count: int, cap: int | None = None) -> None:
    go = home.parent / "go"
    extra = [str(cap)] if cap else []
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(w), str(count), str(home), str(go), *extra])
        for w in range(writers)
    ]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}{w}").exists() for w in range(writers)) and time.monotonic() < deadline:
        time.sleep(0.002)
    go.touch()
    for proc in procs:
        assert proc.wait(timeout=120) == 0


def assert_complete(records: list[dict], writers: int, count: int) -> None:
    assert len(records) == writers * count
    for w in range(writers):
        assert [r["seq"] for r in records if r["writer"] == w] == list(range(count))


def test_8_writers_x_500_appends_lose_and_corrupt_nothing(automem_home):
    run_writers(automem_home, 8, 500)
    path = Path(spool_path(SESSION, str(automem_home)))
    records = whole_lines(path)
    assert_complete(records, 8, 500)
    switches = sum(a["writer"] != b["writer"] for a, b in zip(records, records[1:], strict=False))
    assert switches > 8, "the writers ran one after the other: this run proved nothing about concurrency"
    assert not Path(str(path) + ".1").exists()


def test_concurrent_writers_across_a_rotation_lose_nothing(automem_home):
    # 8 x 250 lines of ~110 bytes = ~220 KB through a 150 KB cap: exactly one rotation, nothing dropped
    run_writers(automem_home, 8, 250, cap=150_000)
    path = Path(spool_path(SESSION, str(automem_home)))
    rotated = Path(str(path) + ".1")
    assert rotated.exists(), "the cap was passed but the spool was not rotated"
    records = whole_lines(rotated) + whole_lines(path)
    assert len(records) == 2000
    for w in range(8):
        assert sorted(r["seq"] for r in records if r["writer"] == w) == list(range(250))
    assert spool.read(SESSION, str(automem_home)) == records


def test_8_concurrent_hook_processes(automem_home, run_hook):
    def writer(w: int) -> list[int]:
        return [run_hook("PreToolUse", pre_tool(f"echo writer-{w} step-{s}")).returncode for s in range(6)]

    with ThreadPoolExecutor(8) as pool:
        codes = [c for result in pool.map(writer, range(8)) for c in result]
    assert codes == [0] * 48
    records = whole_lines(Path(spool_path(SESSION, str(automem_home))))
    assert sorted(r["input"] for r in records) == sorted(
        f"echo writer-{w} step-{s}" for w in range(8) for s in range(6)
    )
    assert not (automem_home / "log").exists()


# --- a writer killed mid-run ----------------------------------------------------------------------------------

KILLED_WRITER = textwrap.dedent("""
    import sys
    from automem.capture import spool
    home, seq = sys.argv[1], 0
    while True:
        records = [{{"v": 1, "kind": "test", "seq": seq, "i": i, "pad": "y" * 3000}} for i in range(8)]
        spool.append("{session}", records, home)
        seq += 1
""").format(session=SESSION)


def test_sigkill_mid_run_leaves_only_whole_lines(automem_home):
    path = Path(spool_path(SESSION, str(automem_home)))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(automem_home)])
    try:
        deadline = time.monotonic() + 60
        while (not path.exists() or path.stat().st_size < 1_000_000) and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    records = spool.read(SESSION, str(automem_home))
    assert len(records) >= 8 * 10
    # events are whole: every seq but possibly the last torn one has all its 8 lines, in order
    seqs = [r["seq"] for r in records]
    assert seqs == sorted(seqs)
    for seq in set(seqs) - {seqs[-1]}:
        assert [r["i"] for r in records if r["seq"] == seq] == list(range(8))
    # a later writer still gets its line read back, even after a torn tail
    spool.append(SESSION, [{"v": 1, "kind": "after-kill"}], str(automem_home))
    assert spool.read(SESSION, str(automem_home))[-1] == {"v": 1, "kind": "after-kill"}


def test_reader_ignores_a_torn_tail_and_recovers_the_line_glued_to_it(automem_home):
    home = str(automem_home)
    spool.append(SESSION, [{"v": 1, "kind": "first"}], home)
    whole = spool.encode_line({"v": 1, "kind": "torn", "text": "z" * 500})
    with open(spool_path(SESSION, home), "ab") as handle:
        handle.write(whole[: len(whole) // 2])  # what a writer killed inside write() could leave
    assert [r["kind"] for r in spool.read(SESSION, home)] == ["first"]
    spool.append(SESSION, [{"v": 1, "kind": "next"}], home)
    assert [r["kind"] for r in spool.read(SESSION, home)] == ["first", "next"]


# --- caps and rotation ----------------------------------------------------------------------------------------


def test_huge_tool_output_and_fields_stay_under_the_line_cap(automem_home, run_hook):
    lines = [f"line {i}: TypeError: value {i} is not callable in module_{i}.handler" for i in range(20_000)]
    output = "\n".join(lines)[:1_000_000]
    payload = {
        "session_id": SESSION,
        "cwd": "/srv/" + "deep/" * 20_000,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash" * 5000,
        "tool_use_id": "t" * 50_000,
        "tool_input": {"command": "python -c '" + "é" * 100_000 + "'"},
        "tool_response": {"stdout": output, "stderr": '\x00\x01"\\' * 50_000, "interrupted": False, "isImage": False},
    }
    done = run_hook("PostToolUse", payload)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    path = Path(spool_path(SESSION, str(automem_home)))
    raw = path.read_bytes().splitlines(keepends=True)
    assert raw and all(len(line) <= spool.MAX_LINE_BYTES for line in raw)
    records = [json.loads(line) for line in raw]
    assert records[0]["kind"] == "result" and records[0]["truncated"] is True
    assert len(records) <= spool.MAX_RECORDS_PER_EVENT


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=20),
        st.one_of(st.text(max_size=20_000), st.integers(), st.none(), st.lists(st.text(max_size=3000), max_size=8)),
        max_size=40,
    )
)
def test_encode_line_is_always_one_capped_json_line(record):
    record = {"v": 1, **{k: v for k, v in record.items() if k != "v"}}
    data = spool.encode_line(record)
    assert len(data) <= spool.MAX_LINE_BYTES
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    value = json.loads(data)
    assert value["v"] == 1


def test_rotation_keeps_one_old_file(automem_home, monkeypatch):
    monkeypatch.setattr(spool, "MAX_SPOOL_BYTES", 4000)
    home = str(automem_home)
    for seq in range(100):
        spool.append(SESSION, [{"v": 1, "kind": "test", "seq": seq, "pad": "p" * 80}], home)
    path = Path(spool_path(SESSION, home))
    assert path.stat().st_size <= 4000 and Path(str(path) + ".1").stat().st_size <= 4000
    seqs = [r["seq"] for r in spool.read(SESSION, home)]
    assert seqs == list(range(seqs[0], 100))  # the newest lines, contiguous: only the dropped .1 is gone
    assert 30 < len(seqs) < 100


# --- malformed payloads ---------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30,
)
FIELDS = [
    "session_id",
    "cwd",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_response",
    "error",
    "prompt",
    "is_interrupt",
    "transcript_path",
    "turn_id",
    "tool_use_id",
    "prompt_id",
]
hostile_strings = st.sampled_from(
    [
        "../../etc/x",
        "..",
        "/",
        "",
        " ",
        "\x00",
        "a" * 300_000,
        "∑é\ud800",
        "NUL\x00id",
        "C:\\Windows\\..\\x",
        "../" * 50 + "passwd",
        "%2e%2e/x",
        "~/.bashrc",
    ]
)
wrong_typed = st.dictionaries(st.sampled_from(FIELDS), json_values | hostile_strings, max_size=len(FIELDS))
events = st.sampled_from(sorted(hook.KNOWN_EVENTS) + ["", "Bogus", "../x"])


@st.composite
def payload_bytes(draw) -> bytes:
    kind = draw(st.sampled_from(["bytes", "value", "dict", "capture"]))
    if kind == "bytes":
        return draw(st.binary(max_size=2000))
    if kind == "value":
        return json.dumps(draw(json_values)).encode()
    fields = draw(wrong_typed)
    if kind == "capture":  # a plausible capture event with garbage in its fields
        fields = {
            "session_id": draw(hostile_strings | st.text(max_size=40)),
            "hook_event_name": draw(st.sampled_from(hook.CAPTURE_EVENTS)),
            **fields,
        }
    text = json.dumps(fields, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A home three folders deep, so that a ``../..`` escape would still land inside tmp_path where we look.

    Late handlers (Stop, SessionEnd: the banker) are switched off: they start detached
    workers, which a thousand examples must not do; their own tests cover them.
    """
    monkeypatch.setattr(hook, "LATE_HANDLERS", {})
    home = tmp_path / "a" / "b" / "home"
    user, work = tmp_path / "user", tmp_path / "work"
    user.mkdir()
    work.mkdir()
    monkeypatch.setenv("AUTOMEM_HOME", str(home))
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.chdir(work)
    return tmp_path


@settings(
    max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(raw=payload_bytes(), event=events, harness=st.sampled_from([[], ["--harness", "codex"], ["--harness"]]))
def test_1000_malformed_payloads_never_raise_and_never_print(sandbox, raw, event, harness):
    argv = ([event] if event else []) + harness
    hook.run(argv, raw)  # raises only on a bug: main() would hide it in the log
    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
    sys.stdout = captured = io.StringIO()
    try:
        assert hook.main(argv) == 0
    finally:
        sys.stdin, sys.stdout = stdin, stdout
    assert captured.getvalue() == ""
    outside = {p for p in files_under(sandbox) if not p.startswith(("a/b/home/", "a/b/home"))}
    assert outside <= {"a", "a/b", "user", "work"}
    home = sandbox / "a" / "b" / "home"
    assert {p.split("/")[0] for p in files_under(home)} <= {"spool", "log"}


@pytest.mark.parametrize("depth", [900, 990, 995, 998, 1000, 1200, 100_000])
@pytest.mark.parametrize("field", ["tool_input", "tool_response"])
def test_deep_nesting_never_raises(sandbox, depth, field):
    raw = json.dumps({**pre_tool("ls"), "hook_event_name": "PostToolUse"})[:-1] + f', "{field}": '
    raw += '{"k": ' * depth + "1" + "}" * depth + "}"
    assert hook.run(["PostToolUse"], raw.encode()) is None


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   \n",
        b"not json",
        b"[1, 2, 3]",
        b"null",
        b"\xff\xfe\x00garbage",
        b"[" * 100_000,
        b'{"a": ' * 50_000,
        json.dumps(pre_tool("ls", session="../../etc/x")).encode(),
        json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash"}).encode(),
        json.dumps({**pre_tool("ls"), "tool_input": [1, {"command": None}], "cwd": 7, "tool_name": {"x": 1}}).encode(),
    ],
)
def test_malformed_payloads_through_the_real_command(sandbox, run_hook, raw):
    done = run_hook("PreToolUse", raw)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    home = sandbox / "a" / "b" / "home"
    assert {p for p in files_under(sandbox) if not p.startswith("a/b/home")} <= {"a", "a/b", "user", "work"}
    log = home / "log" / "automem.log"
    spooled = list((home / "spool").glob("*.jsonl")) if (home / "spool").exists() else []
    assert spooled or len(log.read_text().splitlines()) == 1  # either captured, or one line saying why not
    for path in spooled:
        assert path.name.startswith(("sid-", "4c1d9a7e"))
        whole_lines(path)


# --- unwritable and full homes --------------------------------------------------------------------------------


def test_home_under_a_regular_file(tmp_path, run_hook):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = {**os.environ, "AUTOMEM_HOME": str(blocker / "home"), "HOME": str(tmp_path)}
    done = run_hook("PreToolUse", pre_tool("ls"), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("where", ["file", "proc"])
def test_home_that_is_a_file_or_under_proc(tmp_path, run_hook, where):
    home = tmp_path / "home-file" if where == "file" else Path("/proc/automem-no-such-home")
    if where == "file":
        home.write_text("x")
    elif not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(tmp_path)}
    done = run_hook("PostToolUse", {**pre_tool("ls"), "hook_event_name": "PostToolUse", "tool_response": "x"}, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_unwritable_spool_with_writable_log_is_one_log_line(automem_home, run_hook):
    automem_home.mkdir()
    (automem_home / "spool").write_text("a file where the spool folder should be")
    done = run_hook("PreToolUse", pre_tool("ls"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    lines = (automem_home / "log" / "automem.log").read_text().splitlines()
    assert len(lines) == 1 and "Error" in lines[0]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_home(automem_home, run_hook):
    automem_home.mkdir(mode=0o500)
    try:
        done = run_hook("PreToolUse", pre_tool("ls"))
    finally:
        automem_home.chmod(0o700)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_file_size_limit_does_not_kill_the_hook(automem_home, run_hook):
    """RLIMIT_FSIZE: a write past it raises SIGXFSZ, whose default action kills a process.

    CPython ignores SIGXFSZ at start-up, so write() fails with EFBIG instead; this holds the hook to that."""
    path = Path(spool_path(SESSION, str(automem_home)))
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"v":1}\n' * 512)  # 4096 bytes: the limit below

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # no .pyc writes past the limit at start-up
    done = run_hook("PreToolUse", pre_tool("make all"), env, preexec_fn=limit)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert path.stat().st_size == 4096
    lines = (automem_home / "log" / "automem.log").read_text().splitlines()
    assert len(lines) == 1 and "too large" in lines[0].lower()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_full_disk_is_one_log_line(automem_home, run_hook):
    path = Path(spool_path(SESSION, str(automem_home)))
    path.parent.mkdir(parents=True)
    path.symlink_to("/dev/full")  # every write: ENOSPC
    done = run_hook("PreToolUse", pre_tool("make all"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    lines = (automem_home / "log" / "automem.log").read_text().splitlines()
    assert len(lines) == 1 and "No space left" in lines[0]


# --- the capture switch ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, on",
    [
        ("memory:\n  capture: false\n", False),
        ("# automem\nmemory:\n  auto_bank: true\n  capture: 'no'   # paused\nllm:\n  model: off\n", False),
        ("memory:\n  capture: true\n", True),
        ("llm:\n  capture: false\nmemory:\n  auto_bank: false\n", True),  # another section's key
        ("memory: [unclosed\n\t: : :\n", True),
        ("\x00\xff binary junk", True),
    ],
)
def test_capture_switch(automem_home, run_hook, text, on):
    automem_home.mkdir()
    (automem_home / "config.yml").write_text(text, encoding="utf-8", errors="surrogateescape")
    assert capture_enabled(str(automem_home)) is on
    done = run_hook("PreToolUse", pre_tool("ls"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert Path(spool_path(SESSION, str(automem_home))).exists() is on


def test_config_that_is_a_folder_leaves_capture_on(automem_home, run_hook):
    (automem_home / "config.yml").mkdir(parents=True)
    done = run_hook("PreToolUse", pre_tool("ls"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert Path(spool_path(SESSION, str(automem_home))).exists()


def test_a_huge_prompt_is_scanned_by_its_head_and_tail(automem_home, run_hook):
    """A 20 MB paste is read by its head and tail: the feedback at its end is still found."""
    prompt = "x " * (10 * 1024 * 1024) + "\nfrom now on, always run the linter before committing."
    payload = {"session_id": "huge", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    done = run_hook("UserPromptSubmit", payload)
    assert done.returncode == 0
    lines = (automem_home / "spool" / "huge.jsonl").read_text().splitlines()
    assert any("always run the linter" in line for line in lines)
