"""The full pass's peer engine (betterleaks): spans in characters, filtered like the others, never required."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys

import pytest

from automem.redact import engines, full
from automem.redact.fast import redact_fast
from automem.redact.full import redact

ALNUM = string.ascii_letters + string.digits


def _tok(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
            return v


@pytest.fixture
def rng() -> random.Random:
    return random.Random()


def _sendgrid(rng):
    return f"SG.{_tok(rng, 22, ALNUM + '_-')}.{_tok(rng, 43, ALNUM + '_-')}"


def test_engine_loads():
    assert engines.load_error("betterleaks") is None


@pytest.mark.parametrize("prefix", ["", "héllo wörld ✓ ", "日本語のテキスト 🙂🙂 ", "\ud800 lone surrogate "])
def test_spans_are_character_offsets_on_non_ascii_text(rng, prefix):
    """The engine reports UTF-8 byte positions; the adapter maps them to characters (both tokens, same line)."""
    a, b = _sendgrid(rng), "lin_api_" + _tok(rng, 40)
    text = f"ünïcødé\n{prefix}SENDGRID_API_KEY={a} € and {prefix}LINEAR={b}\n"
    found = sorted(text[s:e] for s, e, _ in engines.betterleaks_spans(text))
    assert found == sorted([a, b])
    found = sorted(text[s:e] for s, e, _ in engines.betterleaks_spans(text, engines.VENDOR_CONFIG))
    assert found == sorted([a, b])


def test_nul_byte_does_not_end_the_scan(rng):
    a = _sendgrid(rng)
    text = f"bin\0ary\nkey {a}\n"
    assert [text[s:e] for s, e, _ in engines.betterleaks_spans(text)] == [a]


def test_full_pass_finds_engine_only_kinds(rng):
    t = "shippo_live_" + "".join(rng.choice("0123456789abcdef") for _ in range(40))
    e = "EZAK" + _tok(rng, 54, string.ascii_lowercase + string.digits)
    text = f"prefix é {'x' * 5000}\nSHIPPO={t}\n{'y ' * 3000}\nclient = EasyPostClient('{e}')\n"
    out = redact(text)
    assert t not in out and e not in out and "[REDACTED:" in out
    assert out.startswith("prefix é ")


def test_a_token_across_chunk_edges_is_found(rng):
    """The text is scanned in overlapping chunks: a token at any offset is whole in one of them."""
    t = _sendgrid(rng)
    for pad in range(full._CHUNK - 80, full._CHUNK + 10, 7):
        text = "a" * pad + " " + t + " tail"
        assert t not in redact(text), pad


@pytest.mark.parametrize(
    "text",
    [
        "SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        '{"hubspot_api_key": "00000000-0000-0000-0000-000000000000"}',
        "Authenticate with `curl -u USERNAME:PASSWORD https://registry.acme.io/v2/_catalog`.",
        "DATABASE_URL=postgres://user:password@localhost:5432/dbname",
        'password = "password"',
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a (example from docs)",
        '"next_page_token": "ZmYx3Tb7M4Jui7JNjp2vz7Xyu8DrMDXJKjmQKkLo"',
        "password = user_password",
    ],
)
def test_engine_hits_on_lookalikes_are_dropped(text):
    assert redact(text) == text


def test_missing_engine_degrades_with_one_log_line(rng, monkeypatch, automem_home):
    """A broken wheel: the rule table and detect-secrets still redact, one line is logged, nothing raises."""
    monkeypatch.setitem(
        engines._LOADERS, "betterleaks", lambda: (_ for _ in ()).throw(OSError("libbetterleaks.so: cannot open"))
    )
    engines._reset("betterleaks")
    try:
        gh = "ghp_" + _tok(rng, 36)
        for _ in range(3):
            out = redact(f"token {gh} and {_sendgrid(rng)}")
            assert gh not in out
        assert engines.load_error("betterleaks") is not None
        log = (automem_home / "log" / "automem.log").read_text()
        lines = [line for line in log.splitlines() if "betterleaks" in line]
        assert len(lines) == 1 and "cannot open" in lines[0]
    finally:
        engines._reset("betterleaks")


def test_engine_failing_on_a_text_loses_nothing(rng, monkeypatch, automem_home):
    binding = engines._load("betterleaks")

    def boom(*_a, **_k):
        raise RuntimeError("engine crashed")

    monkeypatch.setattr(binding, "scan", boom)
    engines._SCAN_FAILED.discard("betterleaks")
    gh = "ghp_" + _tok(rng, 36)
    assert gh not in redact(f"x {gh}")
    assert gh not in redact(f"y {gh}")
    log = (automem_home / "log" / "automem.log").read_text()
    assert sum("engine crashed" in line for line in log.splitlines()) == 1


def test_the_library_is_the_one_the_package_finds_and_answers_as_it_does(rng):
    """automem calls betterleaks' library itself (the package's import costs more than the calls): the same file
    the package's own finder picks, the same version, and the same findings."""
    betterleaks = pytest.importorskip("betterleaks")
    from betterleaks._lib import _find_library, get_binding

    from automem.redact import betterleaks_lib

    assert os.path.samefile(betterleaks_lib.library_path(), _find_library())
    assert betterleaks_lib.version() == betterleaks.__version__
    text = f"token ghp_{_tok(rng, 36)} and {_sendgrid(rng)}".encode()
    theirs = get_binding().scan_string(text.decode())
    ours = engines._load("betterleaks").scan(text)
    assert ours["data"] and ours == theirs


def test_an_unknown_engine_version_falls_back_to_the_whole_rule_sets(rng, monkeypatch):
    """When the installed betterleaks' version cannot be read, the generated rule files are not trusted (even were
    they unreadable too): the full pass compiles the whole sets and still finds what they find."""
    from automem.redact import betterleaks_lib, betterleaks_rules

    monkeypatch.setattr(betterleaks_lib, "version", lambda: None)
    monkeypatch.setattr(betterleaks_rules, "source_version", lambda: None)
    engines._reset("betterleaks")
    try:
        if engines.load_error("betterleaks") is not None:
            pytest.skip("betterleaks unavailable")
        assert engines._BY_NEED["betterleaks"] is None
        gh = "ghp_" + _tok(rng, 36)
        assert gh not in redact(f"token {gh}")
    finally:
        engines._reset("betterleaks")


def test_library_errors_are_clear(tmp_path, monkeypatch):
    from automem.redact import betterleaks_lib

    library = engines._load("betterleaks")
    if isinstance(library, BaseException):
        pytest.skip(f"betterleaks unavailable: {library}")
    with pytest.raises(betterleaks_lib.BetterleaksError):
        library.scan(b"x", str(tmp_path / "no-such-config.toml"))
    fake = tmp_path / "libbetterleaks.so"
    fake.write_bytes(b"not a library")
    monkeypatch.setenv("BETTERLEAKS_LIB_PATH", str(fake))
    assert betterleaks_lib.library_path() == str(fake)  # the variable wins, as with the package
    with pytest.raises(OSError):
        betterleaks_lib.Library()


def test_fast_tier_never_loads_the_engine():
    code = (
        "import sys\nfrom automem.redact.fast import redact_fast\n"
        "redact_fast('SENDGRID_API_KEY=SG.' + 'a1' * 11 + '.' + 'b2' * 21 + 'c')\n"
        "print(any(m.startswith(('betterleaks', 'kingfisher_sdk', 'automem.redact.engines')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
    assert redact_fast("") == ""


def test_generic_rule_set_redacts_as_the_default_rules_do(monkeypatch):
    """The windows are scanned with the keyword-only rules alone (a set that starts faster than the default):
    the full pass must give the same text as with betterleaks' whole default set there."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sources = [
        root / "tests" / "data" / "secrets_extra.jsonl",
        root.parent / "shared" / "corpus" / "secrets" / "cases.jsonl",
    ]
    texts = [json.loads(line)["text"] for src in sources if src.exists() for line in src.open(encoding="utf-8")]
    assert len(texts) > 100
    with_generic = [redact(text) for text in texts]
    assert [rule for *_, rule in engines.betterleaks_spans('password = "hunter2xyzQ9!kk"', engines.GENERIC_CONFIG)] == [
        "generic-password"
    ]
    monkeypatch.setattr(engines, "GENERIC_CONFIG", None)
    assert [redact(text) for text in texts] == with_generic
