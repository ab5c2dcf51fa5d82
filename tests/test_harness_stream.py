"""Streaming guarantees shared by the JSONL readers, checked on a real file of each harness.

Corrupt lines, a half-written last line, a file appended to while it is read, and resuming from
the offset a previous read settled: every finished turn comes out exactly once, with the same key.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from automem.harness import base, claude_code, codex, pi

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")

CASES = [
    pytest.param(
        claude_code,
        "claude/omarchy-backup/projects/-home-vwestberg-Claude/44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl",
        id="claude",
    ),
    pytest.param(
        codex,
        "codex/idaho-vault/sessions/2026/04/19/rollout-2026-04-19T22-04-58-019da910-1d2d-7883-b552-6e3adf8a4ed9.jsonl",
        id="codex",
    ),
    pytest.param(pi, "pi/pi-mono/large-session.jsonl", id="pi"),
]
QUIET = 3600.0
BUSY = 10.0


def _finished(module, path: Path, after_mtime: float, start: int = 0):
    stream = module.read_turns(path, start_offset=start, now=os.stat(path).st_mtime + after_mtime)
    turns = list(stream)
    return [t.turn_key for t in turns if t.finished], stream


def _lines(rel: str) -> list[bytes]:
    return (CORPUS / rel).read_bytes().splitlines(keepends=True)


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_keys_stable_across_rereads(module, rel):
    first, _ = _finished(module, CORPUS / rel, QUIET)
    second, _ = _finished(module, CORPUS / rel, QUIET)
    assert first == second and len(first) == len(set(first)) > 0


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_corrupt_line_in_the_middle_is_skipped(module, rel, tmp_path):
    full, _ = _finished(module, CORPUS / rel, QUIET)
    lines = _lines(rel)
    mid = len(lines) // 2
    broken = tmp_path / Path(rel).name
    broken.write_bytes(
        b"".join(
            lines[:mid] + [b'{"type":"user","message":{"role":"us\x00\xff garbage\n', b"\n", b"[1,2]\n"] + lines[mid:]
        )
    )
    got, stream = _finished(module, broken, QUIET)
    assert got == full
    assert stream.resume_offset == broken.stat().st_size


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_half_written_last_line_is_left_for_next_read(module, rel, tmp_path):
    full, _ = _finished(module, CORPUS / rel, QUIET)
    lines = _lines(rel)
    complete = b"".join(lines[:-1])
    path = tmp_path / Path(rel).name
    path.write_bytes(complete + lines[-1][: len(lines[-1]) // 2])
    first, stream = _finished(module, path, BUSY)
    assert stream.resume_offset <= len(complete)
    with open(path, "ab") as handle:
        handle.write(lines[-1][len(lines[-1]) // 2 :])
    second, _ = _finished(module, path, QUIET, start=stream.resume_offset)
    assert first + second == full


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_appended_while_reading(module, rel, tmp_path):
    full, _ = _finished(module, CORPUS / rel, QUIET)
    lines = _lines(rel)
    half = len(lines) // 2
    path = tmp_path / Path(rel).name
    path.write_bytes(b"".join(lines[:half]))
    stream = module.read_turns(path, now=time.time())  # the file was just written: not quiet
    seen = []
    appended = False
    for turn in stream:
        if turn.finished:
            seen.append(turn.turn_key)
        if not appended:
            with open(path, "ab") as handle:  # the writer goes on while we read
                handle.write(b"".join(lines[half:]))
            appended = True
    rest, _ = _finished(module, path, QUIET, start=stream.resume_offset)
    assert seen + rest == full


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_resume_from_settled_offset_reads_only_the_rest(module, rel, tmp_path):
    full, _ = _finished(module, CORPUS / rel, QUIET)
    lines = _lines(rel)
    path = tmp_path / Path(rel).name
    for fraction in (0.2, 0.5, 0.8):
        cut = max(1, int(len(lines) * fraction))
        path.write_bytes(b"".join(lines[:cut]))
        before, stream = _finished(module, path, BUSY)
        offset = stream.resume_offset
        assert offset == 0 or b"".join(lines)[offset - 1 : offset] == b"\n"  # a line boundary
        after, _ = _finished(module, CORPUS / rel, QUIET, start=offset)
        assert before + after == full, fraction


def test_missing_file_yields_nothing(tmp_path):
    stream = claude_code.read_turns(tmp_path / "gone.jsonl", start_offset=0)
    assert list(stream) == [] and stream.resume_offset == 0


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_over_long_and_deeply_nested_lines_are_skipped(module, rel, tmp_path):
    full, _ = _finished(module, CORPUS / rel, QUIET)
    lines = _lines(rel)
    mid = len(lines) // 2
    huge = b'{"type":"user","pad":"' + b"x" * (base.MAX_LINE + 1000) + b'"}\n'
    deep = b"[" * 50_000 + b"]" * 50_000 + b"\n"  # json.loads raises RecursionError on this
    path = tmp_path / Path(rel).name
    path.write_bytes(b"".join(lines[:mid] + [huge, deep] + lines[mid:]))
    got, stream = _finished(module, path, QUIET)
    assert got == full
    assert stream.resume_offset == path.stat().st_size
    assert stream.corrupt_lines >= 2


def test_line_over_the_cap_keeps_memory_and_offsets_exact(tmp_path):
    import tracemalloc

    first, last = b'{"a": 1}\n', b'{"b": 2}\n'
    huge = b'{"c": "' + b"y" * (4 * base.MAX_LINE) + b'"}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(first + huge + last)
    tracemalloc.start()
    try:
        records = list(base.iter_records(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * base.MAX_LINE  # bounded by the cap (readline's buffer and its copy), not by the 32 MB line
    size = path.stat().st_size
    assert records == [
        (0, len(first), {"a": 1}),
        (len(first), len(first) + len(huge), None),
        (len(first) + len(huge), size, {"b": 2}),
    ]
    assert list(base.iter_records(path, len(first) + len(huge))) == [(len(first) + len(huge), size, {"b": 2})]
    # an over-long line still being written: reading stops at its start, then resumes there once it is complete
    with open(path, "ab") as handle:
        handle.write(b'{"d": "' + b"z" * (base.MAX_LINE + 10))
    assert list(base.iter_records(path, size)) == []
    with open(path, "ab") as handle:
        handle.write(b'"}\n{"e": 5}\n')
    resumed = list(base.iter_records(path, size))
    assert [r[2] for r in resumed] == [None, {"e": 5}] and resumed[0][0] == size
    assert resumed[-1][1] == path.stat().st_size


def test_header_over_the_cap_or_too_deep_reads_as_none(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"[" * 50_000 + b"]" * 50_000 + b"\n")
    assert base.read_first_record(path) is None
    path.write_bytes(b'{"h": "' + b"q" * base.MAX_LINE + b'"}\n')
    assert base.read_first_record(path) is None
    path.write_bytes(b'{"h": 1}\n')
    assert base.read_first_record(path) == {"h": 1}


def test_timestamps_already_canonical_pass_through_and_others_are_normalised():
    from automem.isotime import iso_utc

    assert iso_utc("2025-06-01T12:00:00.123Z") == "2025-06-01T12:00:00.123Z"
    assert iso_utc("2025-06-01T12:00:00Z") == "2025-06-01T12:00:00.000Z"
    assert iso_utc("2025-06-01T12:00:00.123456Z") == "2025-06-01T12:00:00.123Z"
    assert iso_utc("2025-06-01T12:00:00.123+02:00") == "2025-06-01T10:00:00.123Z"
    assert iso_utc("2025-13-01T12:00:00.123Z") is None and iso_utc("2025-06-01T24:00:00.000Z") is None
    assert iso_utc(1_700_000_000_000) == "2023-11-14T22:13:20.000Z"


def _all(module, path: Path, start: int = 0):
    stream = module.read_turns(path, start_offset=start, now=os.stat(path).st_mtime + QUIET)
    return [(t.turn_key, t.prompt, t.answer, [a.input for a in t.actions], t.start_offset) for t in stream]


@needs_corpus
@pytest.mark.parametrize("module,rel", CASES)
def test_a_shared_read_gives_what_a_fresh_read_gives(module, rel, tmp_path):
    """Within share_records a file's lines are parsed once (the worker banks, then extracts): every later read,
    from the start or from a line in the middle, gives what reading the file afresh gives; a file that changed
    since is read afresh."""
    from automem.extract.turns import read_all_turns

    path = tmp_path / Path(rel).name
    path.write_bytes((CORPUS / rel).read_bytes())
    fresh = _all(module, path)
    middle = fresh[len(fresh) // 2][4]
    fresh_middle, fresh_all = _all(module, path, middle), read_all_turns(path)
    reads = []
    real = base._read_records

    def counted(p, start):
        reads.append(start)
        yield from real(p, start)

    base._read_records = counted
    try:
        with base.share_records(path):
            assert _all(module, path) == fresh
            assert _all(module, path, middle) == fresh_middle
            assert read_all_turns(path) == fresh_all
            assert reads == [0]  # parsed once
            with path.open("ab") as out:
                out.write(b'{"type": "user"}\n')
            assert _all(module, path) == _all_unshared(module, path)
    finally:
        base._read_records = real
    assert base._SHARED == {}


def _all_unshared(module, path: Path):
    saved = dict(base._SHARED)
    base._SHARED.clear()
    try:
        return _all(module, path)
    finally:
        base._SHARED.update(saved)
