#!/usr/bin/env python3
"""Score the rule-based extractor against the shared answer key, on the whole corpus and on each half.

The corpus is split by user (origin repository in manifest.json), never by file, so that a rule
written while looking at one half can be checked on sessions of people it never saw:

    .venv/bin/python bench/eval_lessons.py                 # whole key, half A, half B
    .venv/bin/python bench/eval_lessons.py --show          # also every stored memory, per file
    .venv/bin/python bench/eval_lessons.py --half A --show # one half only

Every transcript is extracted into its own empty home (as score_lessons.py asks), with no model.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"
SPLIT = ROOT / "tests" / "data" / "corpus_split.json"


def corpus_files() -> list[dict]:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    return [e for e in manifest if e["file"].endswith(".jsonl") and e["harness"] != "aux"]


def halves() -> dict[str, set[str]]:
    """half name -> the origin repositories (users) in it."""
    return {name: set(repos) for name, repos in json.loads(SPLIT.read_text())["halves"].items()}


def extract_all(files: list[str], tmp: Path, promoted_only: bool = False) -> dict[str, list[dict]]:
    sys.path.insert(0, str(ROOT / "src"))
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.home import Home

    out: dict[str, list[dict]] = {}
    for index, rel in enumerate(files):
        home = Home(tmp / f"h{index}")
        os.environ["AUTOMEM_HOME"] = str(home.root)
        home.ensure()
        consent.write(home.root, "yes")
        result = extract(home, transcript=CORPUS / rel, use_model=False)
        mems = [m for m in result.stored if not promoted_only or m.status != "candidate"]
        out[rel] = [
            {
                "type": m.type,
                "scope": m.scope,
                "status": getattr(m, "status", ""),
                "promoted": getattr(m, "promoted", ""),
                "text": f"{m.summary}\n{m.content}\n{m.why}\n{m.how_to_apply}",
            }
            for m in mems
        ]
    return out


def score(memories: dict[str, list[dict]], tmp: Path) -> str:
    path = tmp / f"mem-{len(memories)}-{abs(hash(tuple(memories)))}.json"
    path.write_text(json.dumps({f: [m["text"] for m in ms] for f, ms in memories.items()}))
    return subprocess.run(
        [sys.executable, str(CORPUS / "score_lessons.py"), str(path)], capture_output=True, text=True, check=True
    ).stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--half", choices=["A", "B"])
    parser.add_argument("--show", action="store_true", help="print every stored memory")
    parser.add_argument("--promoted", action="store_true", help="count only promoted memories (what is injected)")
    parser.add_argument("--missed", action="store_true", help="print the missed lessons too")
    args = parser.parse_args()
    entries = corpus_files()
    split = halves()
    repo_of = {e["file"]: e["origin_repo"] for e in entries}
    chosen = [e["file"] for e in entries if not args.half or repo_of[e["file"]] in split[args.half]]
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        memories = extract_all(chosen, tmp_path, args.promoted)
        report = score(memories, tmp_path)
        print("all   " + report.splitlines()[0])
        if args.missed:
            print_missed(memories)
        for name, repos in split.items():
            part = {f: m for f, m in memories.items() if repo_of[f] in repos}
            if part:
                print(f"half {name} " + score(part, tmp_path).splitlines()[0])
        if args.show:
            index = {e["file"]: i for i, e in enumerate(corpus_files_all())}
            for rel, mems in memories.items():
                print(f"\n=== F{index[rel]} {rel}")
                for m in mems:
                    head = m["text"].split("\n", 1)
                    print(
                        f"  [{m['type']}/{m['scope']}/"
                        f"{m['status'] or '-'}{'/' + m['promoted'] if m['promoted'] else ''}] {head[0]}"
                    )
                    body = head[1].replace("\n", " | ") if len(head) > 1 else ""
                    print(f"      {body[:400]}")
    return 0


def print_missed(memories: dict[str, list[dict]]) -> None:
    """Every lesson of the key no memory of its file states, and every memory that states none."""
    index = {e["file"]: i for i, e in enumerate(corpus_files_all())}
    lessons = [json.loads(line) for line in (CORPUS / "lessons.jsonl").read_text().splitlines() if line.strip()]

    def hit(keywords: list[str], text: str) -> bool:
        return all(k.lower() in text[:600].lower() for k in keywords)

    for lesson in lessons:
        if lesson["file"] in memories and not any(hit(lesson["keywords"], m["text"]) for m in memories[lesson["file"]]):
            print(f"  missed F{index[lesson['file']]} [{lesson['kind']}] {lesson['lesson']}")
    for rel, mems in memories.items():
        for m in mems:
            if not any(hit(lesson["keywords"], m["text"]) for lesson in lessons if lesson["file"] == rel):
                print(f"  noise  F{index[rel]} [{m['type']}] {m['text'].splitlines()[0]}")


def corpus_files_all() -> list[dict]:
    return json.loads((CORPUS / "manifest.json").read_text())


if __name__ == "__main__":
    sys.exit(main())
