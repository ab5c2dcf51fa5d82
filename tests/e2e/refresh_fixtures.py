"""Refresh tests/data/clients/ from transcripts an e2e run kept (``AUTOMEM_E2E_KEEP=<dir> pytest -m e2e``).

    python tests/e2e/refresh_fixtures.py <keep dir>

Each record stays as the client wrote it, except: the run's throwaway paths become
``/home/user/...``, and long strings (the clients' system prompts and tool schemas) are
cut to a stub and long lists to their first items, so the fixtures are small and hold nothing machine-specific.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "clients"
LONG = 400
MAX_ITEMS = 8
_TMP = re.compile(r"/tmp/pytest-of-[^/\s\"']+/pytest-\d+/[^/\s\"']+")
_OTHER = [
    (re.compile(re.escape(str(Path.home() / ".cache" / "automem-e2e"))), "/home/user/.cache/automem-e2e"),
    (re.compile(re.escape(str(REPO))), "/home/user/automem"),
]


def scrub_text(text: str) -> str:
    text = _TMP.sub("/home/user/e2e", text)
    for pattern, repl in _OTHER:
        text = pattern.sub(repl, text)
    return text


def scrub(value):
    if isinstance(value, str):
        value = scrub_text(value)
        return (
            value if len(value) <= LONG else value[:200] + f" [... {len(value) - 200} characters cut for the fixture]"
        )
    if isinstance(value, list):  # long lists (tool schemas) keep their first few items
        return [scrub(v) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return {scrub_text(k): scrub(v) for k, v in value.items()}
    return value


def scrub_file(source: Path, target: Path) -> None:
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            lines.append(json.dumps(scrub(json.loads(line)), ensure_ascii=False, separators=(",", ":")))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def first_prompt_slug(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    # later sessions carry the first one's preference in their brief: the most specific prompt wins
    for marker, slug in (
        ("/memory-status", "slash-command"),
        ("search your memory", "mcp-tool-call"),
        ("Hello again", "next-session"),
        ("Use pnpm", "failing-check-then-fix"),
    ):
        if marker in text:
            return slug
    return path.stem


def main(keep: str) -> None:
    for client in sorted(p for p in Path(keep).iterdir() if p.is_dir()):
        for source in sorted(client.glob("*.jsonl")):
            target = OUT / client.name / f"{first_prompt_slug(source)}.jsonl"
            scrub_file(source, target)
            print(f"{source} -> {target.relative_to(REPO)} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
