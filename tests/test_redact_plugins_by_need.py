"""detect-secrets' plugins loaded by need (redact/detect_secrets_plugins.py) find what every plugin loaded finds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("detect_secrets")

from automem.redact import detect_secrets_plugins as dsp  # noqa: E402
from automem.redact import full  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
LEAVE_OUTS = (frozenset(), full._NEVER_RUN, full._NEVER_RUN | full._ENGINE_COVERS)


def test_the_table_is_what_the_installed_detect_secrets_gives():
    regenerate = f"{Path(sys.executable).name} -m automem.redact.detect_secrets_plugins"
    assert dsp.TABLE.read_text(encoding="utf-8") == dsp.render(), f"out of date: run `{regenerate}`"


@pytest.mark.parametrize("leave_out", LEAVE_OUTS, ids=["all", "never-run", "engine-loaded"])
def test_the_table_lists_the_plugins_the_full_load_makes_in_order_with_their_needles(leave_out):
    from_table = dsp.slots.__wrapped__(leave_out)
    loaded = dsp.plugins(leave_out)
    assert [(s.module, s.name) for s in from_table] == [
        (type(p).__module__.removeprefix("detect_secrets.plugins."), type(p).__name__) for p in loaded
    ]
    assert [s.needles for s in from_table] == [dsp.derive_needles(p) for p in loaded]
    assert [s.patterns for s in from_table] == [dsp.stock_patterns(p) for p in loaded]
    assert sum(s.patterns is not None for s in from_table) >= 15  # most plugins search their denylist only
    assert all(type(s.plugin()) is type(p) for s, p in zip(from_table, loaded, strict=True))


def test_a_window_imports_only_the_plugins_it_may_need():
    """A window with a GitHub token's prefix loads that plugin's module; one without loads neither it nor AWS's."""
    probe = (
        "import sys, automem.redact.full as f\n"
        "f.detect_secrets_spans('x = \"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg\"', windows=[(0, 44)])\n"
        "print('detect_secrets.plugins.github_token' in sys.modules, 'detect_secrets.plugins.aws' in sys.modules)\n"
        "f.detect_secrets_spans('t = ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', windows=[(0, 44)])\n"
        "print('detect_secrets.plugins.github_token' in sys.modules, 'detect_secrets.plugins.aws' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False", "True", "False"], out.stderr


def test_a_window_with_a_plugins_word_but_no_match_of_its_regexes_does_not_import_it():
    """ "aws" is a word AWS's plugin requires, but none of its regexes matches "open the aws console": the plugin
    could find nothing there, and its module is not imported."""
    probe = (
        "import sys, automem.redact.full as f\n"
        "f.detect_secrets_spans('open the aws console now', windows=[(0, 24)])\n"
        "print('detect_secrets.plugins.aws' in sys.modules)\n"
        "f.detect_secrets_spans('aws_secret_key = \"' + 'Ab1' * 13 + 'x' + '\"', windows=[(0, 60)])\n"
        "print('detect_secrets.plugins.aws' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"], out.stderr


def test_another_detect_secrets_version_loads_every_plugin(monkeypatch):
    monkeypatch.setattr(dsp, "installed_version", lambda: "0.0.0-other")
    assert dsp._table() is None
    every = dsp.slots.__wrapped__(full._NEVER_RUN)
    assert all(s._plugin is not None for s in every) and len(every) == len(dsp.plugins(full._NEVER_RUN))


def _secret_texts() -> list[str]:
    sources = [ROOT / "tests" / "data" / "secrets_extra.jsonl", CORPUS / "secrets" / "cases.jsonl"]
    return [json.loads(line)["text"] for src in sources if src.exists() for line in src.open(encoding="utf-8")]


def test_plugins_by_need_find_what_every_plugin_finds(monkeypatch):
    """On the labelled secrets, each text's detect-secrets spans are the same with the table as with every plugin
    loaded and its needles derived (the table's absence)."""
    texts = _secret_texts()
    if len(texts) < 100:
        pytest.skip("the corpus (../shared/corpus) is not here")

    def spans(engine_loaded: bool) -> list:
        return [full.detect_secrets_spans(t, engine_loaded=engine_loaded) for t in texts]

    by_need = [spans(False), spans(True)]
    assert sum(map(bool, by_need[1])) > 50  # the windows of the labelled secrets do give plugins work
    monkeypatch.setattr(dsp, "_table", lambda: None)
    dsp.slots.cache_clear()
    try:
        assert [spans(False), spans(True)] == by_need
    finally:
        monkeypatch.undo()
        dsp.slots.cache_clear()
