#!/usr/bin/env python3
"""Print every memory the extractor (no model) stores for each transcript given, each in its own empty home.

The read-it-as-its-user check on sessions outside the shared corpus (your own, or other people's you may read):

    .venv/bin/python bench/read_memories.py ~/.claude/projects/*/*.jsonl
    .venv/bin/python bench/read_memories.py --promoted session.jsonl   # only what would be injected

Nothing is written outside a temporary folder; the transcripts are only read.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", nargs="+", type=Path)
    parser.add_argument("--promoted", action="store_true", help="only promoted memories (what is injected)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.home import Home

    with tempfile.TemporaryDirectory(prefix="automem-read-") as tmp:
        for index, transcript in enumerate(args.transcripts):
            home = Home(Path(tmp) / f"h{index}")
            os.environ["AUTOMEM_HOME"] = str(home.root)
            home.ensure()
            consent.write(home.root, "yes")
            print(f"=== {transcript}")
            try:
                stored = extract(home, transcript=transcript, use_model=False).stored
            except Exception as exc:  # noqa: BLE001 - one unreadable file must not hide the others
                print(f"  extraction failed: {type(exc).__name__}: {exc}")
                continue
            shown = [m for m in stored if not args.promoted or m.status != "candidate"]
            for memory in shown:
                print(f"  [{memory.type}/{memory.scope}/{memory.status}] {memory.summary}")
                for part in (memory.content, memory.why, memory.how_to_apply):
                    if part:
                        print("      " + str(part).replace("\n", "\n      "))
            if not shown:
                print("  (no memories)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
