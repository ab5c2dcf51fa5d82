"""Both tiers on the own cases (tests/data/secrets_extra.jsonl, and a freshly seeded set of the same shapes) and on
shared/corpus/secrets + own cases together, scored by the shared scorer's rules. Floors are the figures measured
when the cases were written: every case in the file; fresh seeds vary, so they get a little slack."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path

import pytest

from automem.redact.fast import redact_fast
from automem.redact.full import redact

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "secrets"
TIERS = {"fast": redact_fast, "full": redact}


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _module(DATA / "secrets_extra.py", "secrets_extra_gen")


def _file_cases() -> list[dict]:
    return [
        json.loads(line)
        for line in (DATA / "secrets_extra.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _score(cases: list[dict], fn) -> tuple[float, float, float, list[str]]:
    """(recall, strict recall, FP rate, failing ids) with the shared scorer when present, else its rules restated."""
    if (SHARED / "score.py").exists():
        mod = _module(SHARED / "score.py", "shared_score")
        res = mod.score(cases, {c["id"]: fn(c["text"]) for c in cases}, {}, re.compile(mod.DEFAULT_MARKER))
    else:  # the same rules: secrets gone and a marker added; a negative unchanged
        res = []
        for c in cases:
            out = fn(c["text"])
            ok = out == c["text"] if c["negative"] else (not any(s in out for s in c["secrets"]) and "[REDACTED" in out)
            res.append({"id": c["id"], "negative": c["negative"], "ok": ok, "partial": []})
    pos = [r for r in res if not r["negative"]]
    neg = [r for r in res if r["negative"]]
    recall = sum(r["ok"] for r in pos) / len(pos)
    strict = sum(r["ok"] and not r.get("partial") for r in pos) / len(pos)
    fp = sum(not r["ok"] for r in neg) / len(neg)
    return recall, strict, fp, [r["id"] for r in res if not r["ok"]]


def test_file_matches_its_generator():
    """The committed cases are the generator's seed-12 output (regenerate with python tests/data/secrets_extra.py)."""
    assert GEN.cases(random.Random(12)) == _file_cases()


def test_cases_cover_the_kinds_and_lookalikes():
    kinds = {c["type"] for c in _file_cases()}
    for kind in (
        "jwt_base64",
        "k8s_secret_data",
        "sidekiq",
        "sonar",
        "nuget_password",
        "easypost",
        "snyk",
        "adobe",
        "confluent",
        "flutterwave",
        "harness",
        "linear",
        "messagebird",
        "sendgrid",
        "shippo",
        "atlassian",
        "discord",
        "etsy",
        "hubspot",
        "openshift",
        "dotenv_mixed",
        "toml",
        "xml",
        "shell_history",
        "mysql_cli",
        "psql_url",
        "docker_login",
        "git_remote",
        "curl_user",
        "htpasswd",
        "base64_env_line",
        "json_unicode_escape",
        "curl_template",
        "authenticity_token",
        "bucket_key",
        "schema_key",
        "maven_coordinates",
        "xml_schema_type",
        "external_secret",
        "vendor_placeholder",
    ):
        assert kind in kinds, kind


@pytest.mark.parametrize("tier", TIERS)
def test_own_cases(tier):
    recall, strict, fp, bad = _score(_file_cases(), TIERS[tier])
    assert recall == 1.0 and strict == 1.0 and fp == 0.0, bad


@pytest.mark.parametrize("tier", TIERS)
def test_fresh_cases_of_the_same_shapes(tier):
    seed = random.randrange(10**9)
    recall, _strict, fp, bad = _score(GEN.cases(random.Random(seed)), TIERS[tier])
    assert recall >= 0.99 and fp <= 0.01, (seed, bad)


@pytest.mark.skipif(not (SHARED / "cases.jsonl").exists(), reason="shared/corpus/secrets is not there")
@pytest.mark.parametrize("tier", TIERS)
def test_shared_and_own_cases_together(tier):
    cases = [
        json.loads(line) for line in (SHARED / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    recall, strict, fp, bad = _score(cases + _file_cases(), TIERS[tier])
    assert recall >= 0.999 and strict >= 0.99 and fp <= 0.0, bad
