"""No secret reaches disk: a session full of secrets goes through the real hooks and every writer.

One case of every secret type in shared/corpus/secrets (read at run time) is put
into a prompt, a Bash command and its failing output; the hooks run as real
subprocesses with Claude Code payload shapes, then the store writes a memory
and an index text holding all of them. Afterwards every file under
AUTOMEM_HOME (spool, Markdown, index.db if any, log) is searched for each
secret. Extend WRITERS as the extractor, banker and journal arrive.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "secrets" / "cases.jsonl"
SESSION = "e2e-secrets-0001"

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason="shared/corpus/secrets is not there")


def one_case_per_type() -> list[dict]:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
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
        ("PreToolUse", payload("PreToolUse", tool_name="Bash", tool_use_id=tool_id,
                               tool_input={"command": command, "description": "run it"})),
        ("PostToolUse", payload("PostToolUse", tool_name="Bash", tool_use_id=tool_id,
                                tool_input={"command": command},
                                tool_response={"stdout": text, "stderr": f"Error: authentication failed\n{text}\nExit code 1",
                                               "interrupted": False, "isImage": False})),
        ("PostToolUseFailure", payload("PostToolUseFailure", tool_name="Bash", tool_use_id=tool_id,
                                       tool_input={"command": command},
                                       error=f"Command failed with exit code 2\nError: {text}")),
        ("PreToolUse", payload("PreToolUse", tool_name="Write", tool_use_id=tool_id + "w",
                               tool_input={"file_path": "/home/dev/shop/.env", "content": text})),
    ]


def all_files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file()]


def test_no_secret_of_any_type_reaches_disk(automem_home: Path, run_hook) -> None:
    cases = one_case_per_type()
    assert len(cases) >= 100  # every type of the corpus is in the session
    secrets = sorted({s for case in cases for s in case["secrets"] if len(s) >= 6})

    for n, case in enumerate(cases):
        for event, body in session_events(case, n):
            result = run_hook(event, body)
            assert result.returncode == 0
    run_hook("Stop", payload("Stop", stop_hook_active=False, last_assistant_message=" ".join(c["text"] for c in cases[:20])))

    # every writer that exists: the store (Markdown) and the index cleaner
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
