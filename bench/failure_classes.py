#!/usr/bin/env python3
"""Count the extractor's known failure classes on the corpus: what every stored memory shows, per class.

    .venv/bin/python bench/failure_classes.py                      # this checkout
    .venv/bin/python bench/failure_classes.py --src OTHER/src      # another checkout (e.g. an old commit's worktree)

Each user's sessions (one origin repository) are extracted into a home of their own, as a user would have them,
so duplicates across a session family show. The detectors are plain text checks on the stored memories, kept
independent of the code under test:

 1 fix-is-a-look     "What worked" is a diagnostic (sed -n, grep, ls, cat, git status) or a bare fragment
 2 one-off-how-to    "Whenever ... do what worked: <one path>"
 3 machine-path      a home folder with a user name, or a /tmp path, in the summary (3s) or the body (3b)
 4 fragment          a summary opening on a pronoun or a cut-off word, or a raw sentence fragment
 5 role-play         narrative or persona text stored as a preference or decision
 6 not-installed     "not installed" for a program the same session later ran successfully
 7 non-error         an empty grep/rg/diff result or timing lines stored as a failure
 8 garbled           escape codes, control characters, a summary cut inside a word
 9 duplicate         the same summary twice in one user's home
12 other-language    directives stored from Chinese/Japanese/Korean/Russian/Arabic prompts (more is better)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"

_LOOK = re.compile(
    r"What worked: `(?:sed -n|grep|rg|ls|cat|head|tail|wc|git status|git diff|pwd|find)\b"
    r"|What worked: `\w{1,8}`(?! for the same job)"  # a cut fragment ("Write C"); not a program run instead
)
_WHENEVER = re.compile(r"^Whenever\b|do what worked", re.I)
_USER_HOME = re.compile(
    r"/home/(?!user\b|dev\b)[a-z][\w.-]+/|/Users/(?!user\b)[\w.-]+/|[A-Za-z]:\\Users\\(?!user\b)[\w.-]+"
    r"|(?<![\w<])/tmp/[\w.-]+"
)
_FRAGMENT = re.compile(
    r"^(?:they|them|it|its|this|that|these|those|he|she|there|close|same|or|and|but|这个|那个|これ|それ)\b"
    r"|\b(?:the|a|to|of|and|with|in)$|(?<![;:] )…$",
    re.I,
)  # "a; b; …" is a list cut on purpose
_NARRATIVE = re.compile(r"\b(?:you are|your name is|knight|dragon|wizard|princess|warrior|role-?play|the hero)\b", re.I)
_NON_ERROR = re.compile(r"\b(?:grep|rg|ag|diff|cmp)\b[^\n]{0,80}(?:exit code 1|failed)|Wall time:|Chunk ID:", re.I)
_GARBLED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\x1b\[|\[\d{1,3}(?:;\d{1,3})*m|\bE\d{4}\]")
_OTHER_SCRIPT = re.compile(r"[\u0400-\u04ff\u0600-\u06ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_NOT_INSTALLED = re.compile(r"^([\w.+-]+) is not installed")


def classes(memories: list, later_runs: dict[str, set[str]]) -> Counter:
    out: Counter = Counter()
    seen: Counter = Counter(" ".join(m.summary.lower().split())[:60] for m in memories)
    for m in memories:
        body = m.content or ""
        out["total"] += 1
        out["promoted"] += getattr(m, "status", "promoted") == "promoted"
        out["1 fix-is-a-look"] += bool(_LOOK.search(body))
        out["2 one-off-how-to"] += bool(_WHENEVER.search(m.summary))
        out["3s machine-path (summary)"] += bool(_USER_HOME.search(m.summary))
        about_tmp = "/tmp" in m.summary  # a lesson about /tmp itself names it
        out["3b machine-path (body)"] += bool(_USER_HOME.search(body.replace("/tmp/", "") if about_tmp else body))
        out["4 fragment"] += bool(_FRAGMENT.search(m.summary.strip()))
        out["5 role-play"] += m.type in ("preference", "decision") and bool(_NARRATIVE.search(m.summary + " " + body))
        missing = _NOT_INSTALLED.match(m.summary)
        out["6 not-installed, ran later"] += bool(missing and missing.group(1) in later_runs.get(m.session_id, set()))
        out["7 non-error"] += bool(_NON_ERROR.search(m.summary + "\n" + body))
        out["8 garbled"] += bool(_GARBLED.search(m.summary + body))
        out["12 other-language directive"] += m.type in ("preference", "decision") and bool(
            _OTHER_SCRIPT.search(m.summary)
        )
    out["9 duplicate"] = sum(n - 1 for n in seen.values() if n > 1)
    return out


def _ran_ok(transcript: Path) -> set[str]:
    """Programs a transcript's successful calls ran (a rough reading, independent of the code under test)."""
    names: set[str] = set()
    for line in transcript.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"command"' not in line and '"cmd"' not in line:
            continue
        for match in re.finditer(r'"(?:command|cmd)"\s*:\s*"([^"\\]{1,200})', line):
            names.update(re.findall(r"(?:^|[;&|]\s*)([a-z][\w.+-]*)", match.group(1)))
    return names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(ROOT / "src"), help="the automem source folder to measure")
    args = ap.parse_args()
    sys.path.insert(0, args.src)
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.home import Home

    manifest = json.loads((CORPUS / "manifest.json").read_text())
    users: dict[str, list[str]] = {}
    for entry in manifest:
        if entry["file"].endswith(".jsonl") and entry["harness"] != "aux":
            users.setdefault(entry["origin_repo"], []).append(entry["file"])
    total: Counter = Counter()
    base = Path(tempfile.mkdtemp(prefix="automem-classes-"))
    for n, (_user, files) in enumerate(sorted(users.items())):
        home = Home(base / f"u{n}")
        os.environ["AUTOMEM_HOME"] = str(home.root)
        home.ensure()
        consent.write(home.root, "yes")
        stored, ran = [], {}
        for rel in files:
            result = extract(home, transcript=CORPUS / rel, use_model=False)
            for memory in result.stored:
                ran.setdefault(getattr(memory, "session_id", ""), _ran_ok(CORPUS / rel))
            stored += result.stored
        total.update(classes(stored, ran))
    width = max(len(k) for k in total)
    for key in sorted(total, key=lambda k: (not k[0].isdigit(), int(re.match(r"\d*", k).group(0) or 0), k)):
        print(f"{key:<{width}}  {total[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
