#!/usr/bin/env python3
"""Print the SessionStart brief every corpus user would get, each user's sessions extracted into a home of their own.

    .venv/bin/python bench/briefs.py            # every project's brief
    .venv/bin/python bench/briefs.py --keep DIR  # keep the homes (then: AUTOMEM_HOME=DIR/u0 automem audit)

This is the read-it-as-its-user check: every line of a brief should be one the user would keep.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="build the homes here and keep them")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from automem import brief, consent
    from automem.extract.pipeline import extract
    from automem.home import Home
    from automem.index.db import open_index
    from automem.index.sync import sync

    manifest = json.loads((CORPUS / "manifest.json").read_text())
    users: dict[str, list[str]] = {}
    for entry in manifest:
        if entry["file"].endswith(".jsonl") and entry["harness"] != "aux":
            users.setdefault(entry["origin_repo"], []).append(entry["file"])
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="automem-briefs-"))
    for n, (user, files) in enumerate(sorted(users.items())):
        home = Home(base / f"u{n}")
        os.environ["AUTOMEM_HOME"] = str(home.root)
        home.ensure()
        consent.write(home.root, "yes")
        for rel in files:
            extract(home, transcript=CORPUS / rel, use_model=False)
        conn = open_index(str(home.root))
        try:
            sync(conn, str(home.root), deep=True)
            for project in home.projects():
                text = brief.build(project.slug, home=home, conn=conn).text
                if text:  # _global: what every project of this user (a new one too) gets
                    print(f"===== {user} ({home.root.name}) project {project.slug}\n{text}\n")
        finally:
            conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
