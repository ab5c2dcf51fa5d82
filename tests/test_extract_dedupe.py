"""Dedupe threshold calibrated on tests/data/dedupe_pairs.jsonl (hand-written, labelled pairs)."""

from __future__ import annotations

import json
from pathlib import Path

from automem.extract.dedupe import THRESHOLD, Deduper

PAIRS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "dedupe_pairs.jsonl").read_text().splitlines()
    if line.strip()
]


def precision_recall(threshold: float) -> tuple[float, float]:
    """Every pair's `a` is an existing memory; each `b` is checked against all of them, as in real use.

    A true positive is a duplicate `b` matched to its own `a`; any other match at or above the
    threshold is a false positive (a lesson that would be lost to the wrong memory).
    """
    existing = sorted({p["a"] for p in PAIRS})
    deduper = Deduper(existing)
    tp = fp = fn = 0
    for pair in PAIRS:
        found = deduper.best(pair["b"])
        hit = found is not None and found[1] >= threshold
        right = hit and existing[found[0]] == pair["a"]
        if pair["duplicate"] and right:
            tp += 1
        elif hit:
            fp += 1
        if pair["duplicate"] and not right:
            fn += 1
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


def test_labelled_set_is_big_enough_and_balanced():
    assert len(PAIRS) >= 100
    dup = sum(p["duplicate"] for p in PAIRS)
    assert 40 <= dup <= len(PAIRS) - 40


def test_calibrated_threshold_precision_and_recall(capsys):
    precision, recall = precision_recall(THRESHOLD)
    with capsys.disabled():
        print(f"\ndedupe threshold {THRESHOLD}: precision {precision:.2f} recall {recall:.2f} on {len(PAIRS)} pairs")
    assert precision >= 0.95 and recall >= 0.9
    # the calibration is a real trade-off: a lower bar loses precision, a higher one recall
    assert precision_recall(0.2)[0] < precision and precision_recall(0.6)[1] < recall


def test_similarity_is_scale_free():
    small = Deduper(["Use pnpm, not npm, in this repo"])
    big = Deduper(
        ["Use pnpm, not npm, in this repo"] + [f"unrelated lesson number {i} about topic {i}" for i in range(500)]
    )
    query = "Use pnpm instead of npm in this repository"
    assert small.duplicate_of(query) == 0 and big.duplicate_of(query) == 0
    assert small.duplicate_of("Docker builds need --platform linux/amd64") is None
