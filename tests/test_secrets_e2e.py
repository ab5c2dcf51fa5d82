"""No secret reaches disk: a session full of secrets goes through the real hooks and every writer.

One case of every secret type in shared/corpus/secrets (read at run time) and in tests/data/secrets_extra.jsonl
(the red team's shapes: lower-case passwords, tokens as URL users, encoded forms) is put
into a prompt, a Bash command and its failing output; the hooks run as real
subprocesses with Claude Code payload shapes, then the store writes a memory
and an index text holding all of them. Afterwards every file under
AUTOMEM_HOME (spool, Markdown, index.db if any, log) is searched for each
secret. Extend WRITERS as the extractor, banker and journal arrive.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from pathlib import Path

import pytest
from conftest import hook_command

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "secrets" / "cases.jsonl"
SESSION = "e2e-secrets-0001"

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason="shared/corpus/secrets is not there")


EXTRA = Path(__file__).parent / "data" / "secrets_extra.jsonl"  # the red team's shapes, and more vendor kinds


def one_case_per_type() -> list[dict]:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases += [json.loads(line) for line in EXTRA.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_type: dict[str, list[dict]] = {}
    for case in cases:
        if not case["negative"]:
            by_type.setdefault(case["type"], []).append(case)
    rng = random.Random(len(cases))
    return [rng.choice(group) for _, group in sorted(by_type.items())]


def payload(event: str, **fields) -> dict:
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-shop/{SESSION}.jsonl",
        "cwd": "/home/dev/shop",
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def session_events(case: dict, n: int) -> list[tuple[str, dict]]:
    text = case["text"]
    tool_id = f"toolu_{n:04d}"
    command = text if len(text) <= 250 else text[:250]
    return [
        ("UserPromptSubmit", payload("UserPromptSubmit", prompt=f"No, don't use that one. Use this instead: {text}")),
        (
            "PreToolUse",
            payload(
                "PreToolUse",
                tool_name="Bash",
                tool_use_id=tool_id,
                tool_input={"command": command, "description": "run it"},
            ),
        ),
        (
            "PostToolUse",
            payload(
                "PostToolUse",
                tool_name="Bash",
                tool_use_id=tool_id,
                tool_input={"command": command},
                tool_response={
                    "stdout": text,
                    "stderr": f"Error: authentication failed\n{text}\nExit code 1",
                    "interrupted": False,
                    "isImage": False,
                },
            ),
        ),
        (
            "PostToolUseFailure",
            payload(
                "PostToolUseFailure",
                tool_name="Bash",
                tool_use_id=tool_id,
                tool_input={"command": command},
                error=f"Command failed with exit code 2\nError: {text}",
            ),
        ),
        (
            "PreToolUse",
            payload(
                "PreToolUse",
                tool_name="Write",
                tool_use_id=tool_id + "w",
                tool_input={"file_path": "/home/dev/shop/.env", "content": text},
            ),
        ),
    ]


def write_claude_transcript(user_home: Path, cases: list[dict]) -> Path:
    """A Claude Code transcript (HARNESSES.md 2.2 shapes): per case a prompt, a failing Bash call and an answer."""
    path = user_home / ".claude" / "projects" / "-home-dev-shop" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    lines, parent, clock = [], None, 0

    def add(record: dict) -> None:
        nonlocal parent, clock
        clock += 1
        uid = f"00000000-0000-4000-8000-{clock:012d}"
        lines.append(
            {
                "uuid": uid,
                "parentUuid": parent,
                "isSidechain": False,
                "sessionId": SESSION,
                "timestamp": f"2026-11-01T10:{clock // 60:02d}:{clock % 60:02d}.000Z",
                "cwd": "/home/dev/shop",
                "version": "2.1.300",
                "userType": "external",
                **record,
            }
        )
        parent = uid

    for n, case in enumerate(cases):
        text, tool_id = case["text"], f"toolu_t{n:04d}"
        add({"type": "user", "message": {"role": "user", "content": f"Please check this config: {text}"}})
        add(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}a",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Bash",
                            "input": {"command": f"echo '{text[:200]}'"},
                        }
                    ],
                },
            }
        )
        add(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "is_error": True,
                            "content": f"Exit code 1\nError: {text}",
                        }
                    ],
                },
            }
        )
        add(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}b",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"The failing value was {text}"}],
                },
            }
        )
        add({"type": "system", "subtype": "turn_duration", "durationMs": 1000})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def automem(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [*hook_command(), *args], capture_output=True, text=True, env=dict(os.environ), cwd=cwd, timeout=300
    )
    assert proc.returncode == 0, f"automem {args[0]}: {proc.stderr[-2000:]}"
    return proc


def wait_for_detached_workers(home: Path, timeout: float = 120) -> None:
    """The Stop hook's worker runs detached; wait until it let go of its locks."""
    import fcntl

    deadline = time.time() + timeout
    for lock in [home / "state" / "bank.lock", *home.glob("state/extract/*.lock")]:
        if not lock.exists():
            continue
        with open(lock, "a+") as handle:
            while time.time() < deadline:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(handle, fcntl.LOCK_UN)
                    break
                except BlockingIOError:
                    time.sleep(0.2)


def all_files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file()]


@pytest.mark.slow  # every case of the corpus through the real hooks and a real extraction
def test_no_secret_of_any_type_reaches_disk(automem_home: Path, run_hook) -> None:
    cases = one_case_per_type()
    assert len(cases) >= 100  # every type of the corpus is in the session
    secrets = sorted({s for case in cases for s in case["secrets"] if len(s) >= 6})

    for n, case in enumerate(cases):
        for event, body in session_events(case, n):
            result = run_hook(event, body)
            assert result.returncode == 0
    # the session's transcript carries the same secrets in prompts, tool calls, tool output and answers
    transcript = write_claude_transcript(Path(os.environ["HOME"]), cases)
    automem(["consent", "yes"])
    run_hook(
        "Stop",
        payload(
            "Stop",
            stop_hook_active=False,
            transcript_path=str(transcript),
            last_assistant_message=" ".join(c["text"] for c in cases[:20]),
        ),
    )
    # every writer that exists, run to completion in this test: the banker, the extractor (spool and transcript),
    # the index, a memory written by hand, and the store itself
    automem(["bank", "backfill", "--days", "3650"])
    automem(["extract", "--session", SESSION, "--cwd", "/home/dev/shop", "--no-model"])
    automem(["extract", "--transcript", str(transcript), "--no-model"])
    automem(["remember", "--type", "decision", "Deploy with this token: " + cases[0]["text"]], cwd=transcript.parent)
    automem(["reindex"])
    wait_for_detached_workers(automem_home)
    bank_entries = list(automem_home.glob("projects/*/bank/*.md"))
    assert len(bank_entries) >= len(cases), "the banker wrote an entry per turn"
    assert (automem_home / "index.db").exists()

    from automem.store import clean_for_index, write_markdown

    everything = "\n\n".join(case["text"] for case in cases)
    write_markdown(automem_home / "projects" / "shop" / "memories" / "secrets.md", f"# Lesson\n\n{everything}\n")
    index_text = clean_for_index(everything)
    (automem_home / "index-input.txt").write_text(index_text, encoding="utf-8")

    files = all_files(automem_home)
    spool = [p for p in files if "spool" in p.parts]
    assert spool, "the hooks wrote no spool at all: the test would prove nothing"
    assert sum(len(p.read_text(encoding="utf-8")) for p in spool) > 10_000
    leaks = []
    for path in files:
        data = path.read_bytes().decode("utf-8", "replace")
        for secret in secrets:
            if secret in data or json.dumps(secret)[1:-1] in data:
                leaks.append(f"{path.relative_to(automem_home)}: {secret[:16]}...")
    assert not leaks, f"{len(leaks)} secrets on disk:\n" + "\n".join(leaks[:30])
    assert "[REDACTED:" in (automem_home / "projects" / "shop" / "memories" / "secrets.md").read_text()
