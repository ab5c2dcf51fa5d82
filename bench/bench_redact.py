"""Redaction speed on mixed transcript text, next to detect-secrets alone on the same input.

Builds several MB from shared/corpus/transcripts at run time (nothing copied into
the project), then prints MB/s for: the full pass, the fast tier, and the floor
(detect-secrets' own ``scan_line``-equivalent: every plugin on every line), plus
the fast tier's import cost as a subprocess measured against a bare python that
imports json (what a hook pays anyway). Budgets: full >= 5 MB/s, fast >= 20 MB/s,
fast import <= 15 ms.

    .venv/bin/python bench/bench_redact.py [--mb 8] [--floor-mb 1]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRANSCRIPTS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"


def mixed_text(mb: float) -> str:
    files = sorted(p for p in TRANSCRIPTS.rglob("*") if p.suffix in (".jsonl", ".md", ".json") and p.is_file())
    if not files:
        sys.exit(f"no transcripts under {TRANSCRIPTS}")
    parts, size = [], 0
    while size < mb * 1e6:
        for path in files:
            chunk = path.read_text(encoding="utf-8", errors="replace")
            parts.append(chunk)
            size += len(chunk)
            if size >= mb * 1e6:
                break
    return "".join(parts)


def rate(fn, text: str, repeat: int = 3) -> float:
    best = min(_timed(fn, text) for _ in range(repeat))
    return len(text) / 1e6 / best


def _timed(fn, text: str) -> float:
    t0 = time.perf_counter()
    fn(text)
    return time.perf_counter() - t0


def detect_secrets_alone(text: str) -> None:
    """The floor: every detect-secrets plugin on every line, in-process (no prefilter)."""
    from automem.redact.detect_secrets_plugins import plugins as every_plugin

    plugins = every_plugin()
    for line in text.splitlines():
        for plugin in plugins:
            for _hit in plugin.analyze_string(line):
                pass


def import_ms(module: str, runs: int = 15) -> tuple[float, float]:
    """Median wall time of `python -c 'import json; import <module>'` minus `python -c 'import json'`."""
    with tempfile.TemporaryDirectory() as cache:
        env_args = ["-X", f"pycache_prefix={cache}"]
        base = [sys.executable, *env_args, "-c", "import json"]
        mod = [sys.executable, *env_args, "-c", f"import json; import {module}"]
        subprocess.run(mod, check=True)  # warm the bytecode cache, as an installed package has it
        times_base, times_mod = [], []
        for _ in range(runs):
            for cmd, out in ((base, times_base), (mod, times_mod)):
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, env=_env())
                out.append(time.perf_counter() - t0)
    b, m = statistics.median(times_base) * 1000, statistics.median(times_mod) * 1000
    return m - b, b


def _env() -> dict:
    import os

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=8.0, help="size of the mixed input")
    ap.add_argument("--floor-mb", type=float, default=1.0, help="input size for detect-secrets alone (it is slow)")
    a = ap.parse_args()

    from automem.redact.fast import redact_fast
    from automem.redact.full import redact

    text = mixed_text(a.mb)
    redact("warm up: password=Warm2Up!x")
    full = rate(redact, text)
    fast = rate(redact_fast, text)
    floor_text = text[: int(a.floor_mb * 1e6)]
    floor = rate(detect_secrets_alone, floor_text, repeat=1)
    extra, base = import_ms("automem.redact.fast")
    print(f"input: {len(text) / 1e6:.1f} MB of mixed transcript text ({TRANSCRIPTS})")
    print(f"full pass (rules, d-s, betterleaks) {full:7.2f} MB/s   budget >= 5    x{full / floor:5.1f} the floor")
    print(f"fast tier (rules, stdlib re)         {fast:7.2f} MB/s   budget >= 20   x{fast / floor:5.1f} the floor")
    print(
        f"detect-secrets alone (floor)         {floor:7.2f} MB/s   (all plugins, every "
        f"line, {len(floor_text) / 1e6:.1f} MB)"
    )
    print(
        f"fast tier import                     {extra:7.2f} ms     budget <= 15   (over a "
        f"python importing json: {base:.1f} ms)"
    )


if __name__ == "__main__":
    main()
