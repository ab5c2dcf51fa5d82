"""betterleaks' vendor rules compiled by need (redact/betterleaks_rules.py) find what the whole set finds."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("betterleaks")

from automem.redact import betterleaks_rules, engines  # noqa: E402
from automem.redact.full import redact  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
REGENERATE = f"{Path(sys.executable).name} -m automem.redact.betterleaks_rules"


def _secret_texts() -> list[str]:
    sources = [ROOT / "tests" / "data" / "secrets_extra.jsonl", CORPUS / "secrets" / "cases.jsonl"]
    return [json.loads(line)["text"] for src in sources if src.exists() for line in src.open(encoding="utf-8")]


def _transcript_texts(limit: int = 1_500_000, piece: int = 8192) -> list[str]:
    """Pieces of the corpus's largest transcripts of each harness (the text a worker redacts comes from them)."""
    out: list[str] = []
    for harness in ("claude", "codex", "pi"):
        files = sorted((CORPUS / "transcripts" / harness).rglob("*.jsonl"), key=lambda p: p.stat().st_size)
        budget = limit // 3
        for path in reversed(files):
            text = path.read_text(encoding="utf-8", errors="replace")[:budget]
            out.extend(text[i : i + piece] for i in range(0, len(text), piece))
            budget -= len(text)
            if budget <= 0:
                break
    return out


@pytest.fixture(scope="module")
def binding():
    assert engines.load_error("betterleaks") is None
    return engines._load("betterleaks")


def test_the_rule_files_are_what_the_installed_betterleaks_generates():
    version, default = betterleaks_rules.installed()
    for path, text in betterleaks_rules.render(default, version).items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run `{REGENERATE}`"
    assert betterleaks_rules.source_version() == version
    assert engines.load_error("betterleaks") is None
    assert engines._BY_NEED["betterleaks"] is not None  # so the full pass loads the rules by need


def _exact(binding, text: str) -> str | None:
    """A config of exactly the rules text needs (a fresh set, not what earlier texts loaded)."""
    by_need = betterleaks_rules.ByNeed(binding)
    return by_need.config_for(engines._encode(text.replace("\0", " ")))


def _spans(text: str, config: str | None) -> list:
    return sorted(engines.betterleaks_spans(text, config)) if config else []


@pytest.mark.parametrize("source", ["secrets", "transcripts"])
def test_the_rules_a_text_needs_find_what_the_whole_set_finds(binding, source):
    secrets = _secret_texts()
    if len(secrets) < 100:
        pytest.skip("the corpus (../shared/corpus) is not here")
    texts = secrets
    if source == "transcripts":  # transcript text, each piece with a case of the secrets corpus on its last line
        texts = [piece + "\n" + secrets[i % len(secrets)] for i, piece in enumerate(_transcript_texts())]
    found = 0
    for text in texts:
        whole = _spans(text, engines.VENDOR_CONFIG)
        assert _spans(text, _exact(binding, text)) == whole, text[:200]
        found += bool(whole)
    assert found > 50


def test_the_python_probe_names_the_rules_the_engine_names(binding, tmp_path):
    """KeywordProbe against the same probe run by the engine: texts of the corpora, and keywords glued, cut,
    overlapping, upper-cased, next to non-ASCII letters and the two whose lower case is ASCII. It may name more
    (only where Python and Go lower a character differently), never fewer."""
    import random

    probe = betterleaks_rules.keyword_probe()
    keywords = json.loads(betterleaks_rules.VENDOR_KEYWORDS.read_text(encoding="utf-8"))["keywords"]
    config = tmp_path / "probe.toml"
    config.write_text(betterleaks_rules.probe_config(keywords), encoding="utf-8")
    seed = random.randrange(10**9)
    rng = random.Random(seed)
    words = sorted(keywords)
    texts = _secret_texts()[:400] + _transcript_texts(limit=200_000)
    for _ in range(1500):
        parts = [rng.choice(words) for _ in range(rng.randint(1, 4))]
        glued = "".join(p[: rng.randint(1, len(p))] if rng.random() < 0.3 else p for p in parts)
        glued = glued.upper() if rng.random() < 0.5 else glued
        if rng.random() < 0.2:
            glued = glued.replace("K", "\u212a").replace("I", "\u0130")
        texts.append(rng.choice(["", "x", "é ", "日本 "]) + glued + rng.choice(["", "é", " ok"]))
    for text in texts:
        data = engines._encode(text.replace("\0", " "))
        engine = {str(item.get("rule_id")) for item in binding.scan(data, str(config)).get("data") or []}
        python = probe.rules_in(data)
        assert engine <= python, (seed, text[:200], engine - python)
        if not any(ch in text for ch in "\u212a\u0130"):
            assert python == engine, (seed, text[:200], python - engine)


def test_a_text_without_a_keyword_of_the_keyword_only_rules_gets_no_finding_of_them(binding, monkeypatch):
    """The gate that spares compiling the keyword-only rules: where it says none can fire, the engine finds
    nothing with them; where the text has one of their keywords it lets the scan run."""
    texts = _secret_texts()[:300] + _transcript_texts(limit=300_000, piece=600)
    if len(texts) < 300:
        pytest.skip("the corpus (../shared/corpus) is not here")
    texts += ['id: "2026-12-05T11-26-41-9ec496"', "PASSWORD = 'hunter2xyzQ9!kk'", "x \u212aey = 'Zq81kLm2Nx7w'"]
    skipped = 0
    for text in texts:
        if engines.generic_may_fire(text):
            continue
        skipped += 1
        assert engines.betterleaks_spans(text, engines.GENERIC_CONFIG) == [], text[:200]
    assert skipped > 50
    assert engines.generic_may_fire("PASSWORD = 'hunter2xyzQ9!kk'")
    assert engines.generic_may_fire("x \u212aey = 'Zq81kLm2Nx7w'")
    assert not engines.generic_may_fire('id: "2026-12-05T11-26-41-9ec496"')
    # the engine reads a NUL as a space: so does the gate ("login (" is a keyword)
    assert engines.generic_may_fire('conn = login\0("deploy", "Zq81kLm2Nx7wPqRt5Yu8iAb3")')
    scanned = []
    monkeypatch.setattr(engines, "betterleaks_spans", lambda text, config=None: scanned.append(config) or [])
    redact('front: "2026-12-05T11-26-41-9ec496"')
    assert engines.GENERIC_CONFIG not in scanned


def test_the_probe_names_a_rule_for_its_keyword_in_any_case_and_its_components(binding):
    by_need = betterleaks_rules.ByNeed(binding)
    assert by_need.needed(b"nothing to see here") == set()
    assert "github-pat" in by_need.needed(b"x GHP_ y")
    assert "github-pat" not in by_need.needed(b"x gh p_ y")
    # a composite rule brings the rules it needs as components, whatever their own keywords
    assert by_need.needed(b"ALGOLIA") >= {"algolia-api-key", "algolia-application-id"}
    assert by_need.needed(b"aik_secret_") >= {"aikido-client-secret", "aikido-client-id"}


def test_a_grown_set_keeps_finding_what_it_found_and_leaves_no_file(binding, monkeypatch):
    scratch = Path(tempfile.mkdtemp(prefix="automem-test-"))
    monkeypatch.setenv("TMPDIR", str(scratch))
    by_need = betterleaks_rules.ByNeed(binding)
    gh = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    sg = "SG." + "aB3dE5fG7hJ9kL1mN3pQ5r" + "." + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5AbC7dE9f"
    first = by_need.config_for(f"token {gh}".encode())
    assert first and "github-pat" in by_need.loaded and "sendgrid-api-token" not in by_need.loaded
    second = by_need.config_for(f"key {sg}".encode())
    assert second != first and {"github-pat", "sendgrid-api-token"} <= by_need.loaded
    assert by_need.config_for(f"token {gh}".encode()) == second  # nothing new: the same compiled set
    text = f"token {gh} and {sg}"
    assert [r for *_, r in engines.betterleaks_spans(text, second)] == [
        r for *_, r in engines.betterleaks_spans(text, engines.VENDOR_CONFIG)
    ]
    assert os.listdir(scratch) == []
    os.rmdir(scratch)


def test_configs_a_killed_process_left_are_swept_once_an_hour_old(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    orphan = tmp_path / "automem-betterleaks-0123abcd-5f5f5f.toml"
    fresh = tmp_path / "automem-betterleaks-4567cdef-6e6e6e.toml"
    other = tmp_path / "someone-else.toml"
    for path in (orphan, fresh, other):
        path.write_text("[[rules]]\n")
    old = os.path.getmtime(fresh) - 2 * 3600
    os.utime(orphan, (old, old))
    os.utime(other, (old, old))
    assert betterleaks_rules.sweep_orphan_configs() == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, other.name])


def test_a_process_that_meets_every_kind_ends_with_the_whole_set(binding):
    by_need = betterleaks_rules.ByNeed(binding)
    total = len(by_need.rules.blocks)
    texts = _secret_texts()
    for text in texts:
        by_need.config_for(engines._encode(text))
    assert by_need.whole and by_need.config == str(betterleaks_rules.VENDOR_RULES)
    assert by_need.loaded == frozenset(by_need.rules.blocks) and by_need.spent <= total // 2 + total
    assert [_spans(t, by_need.config_for(engines._encode(t))) for t in texts[:50]] == [
        _spans(t, engines.VENDOR_CONFIG) for t in texts[:50]
    ]


def test_another_betterleaks_version_gets_the_whole_set(monkeypatch):
    texts = _secret_texts()[:150]
    by_need = [redact(text) for text in texts]
    monkeypatch.setattr(betterleaks_rules, "source_version", lambda: "0.0.0")
    engines._reset("betterleaks")
    try:
        assert engines.vendor_config("any text") == engines.VENDOR_CONFIG
        assert engines.generic_config() == engines.GENERIC_FALLBACK
        assert [redact(text) for text in texts] == by_need
    finally:
        engines._reset("betterleaks")


def test_a_failing_probe_falls_back_to_the_whole_set(monkeypatch, automem_home):
    assert engines.load_error("betterleaks") is None
    by_need = engines._BY_NEED["betterleaks"]
    assert by_need is not None

    def boom(_data):
        raise RuntimeError("probe broke")

    monkeypatch.setattr(by_need, "needed", boom)
    engines._SCAN_FAILED.discard("betterleaks")
    gh = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    assert engines.vendor_config(f"x {gh}") == engines.VENDOR_CONFIG
    assert gh not in redact(f"x {gh}")
    engines._SCAN_FAILED.discard("betterleaks")


def test_a_keyword_rule_file_that_does_not_load_brings_back_the_keyword_detector(monkeypatch, tmp_path, automem_home):
    """The keyword-only rules compile on first need, not at the engine's load: when their file is rejected then, the
    engine counts as not loaded, and detect-secrets' keyword detector judges the windows as it does without it."""
    broken = tmp_path / "generic.toml"
    broken.write_text("[[rules]]\nid = 'x'\nregex = '''(unclosed'''\nkeywords = ['password']\n", encoding="utf-8")
    engines._reset("betterleaks")
    monkeypatch.setattr(engines, "GENERIC_CONFIG", str(broken))
    from automem.redact import full

    calls = []
    real = full.detect_secrets_spans
    monkeypatch.setattr(
        full,
        "detect_secrets_spans",
        lambda *a, **k: calls.append(k["engine_loaded"] if "engine_loaded" in k else a[4]) or real(*a, **k),
    )
    try:
        assert engines.load_error("betterleaks") is None
        redact('conn = login("deploy", "Zq81kLm2Nx7wPqRt5Yu8iAb3")')
        assert engines.load_error("betterleaks") is not None
        assert calls[-1] is False  # the same text judged again with the keyword detector
        redact('auth("Zq81kLm2Nx7wPqRt5Yu8iAb3")')
        assert calls[-1] is False
    finally:
        engines._reset("betterleaks")
