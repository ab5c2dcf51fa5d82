"""Redaction: fresh secrets of every shape vanish, look-alikes stay, both tiers, idempotent."""

from __future__ import annotations

import base64
import json
import os
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from automem.redact.fast import redact_fast
from automem.redact.full import is_clean, redact
from automem.redact.rules import is_allowed

TIERS = {"fast": redact_fast, "full": redact}
AUTOMEM = Path(sys.executable).parent / "automem"
SCORE = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "secrets" / "score.py"

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def chars(alphabet: str, n: int, m: int | None = None):
    return st.text(alphabet=alphabet, min_size=n, max_size=m or n)


def _mixed(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)


TOKEN = chars(ALNUM, 20, 40).filter(_mixed)
PASSWORD = st.builds(
    lambda a, b, c: a + b + c,
    chars(string.ascii_letters, 5, 9).filter(lambda s: s.lower() != s and s.upper() != s),
    st.sampled_from("!^%~_-*#+,."),
    chars(string.digits, 3, 5),
)

SECRETS = {
    "aws": st.builds(
        lambda p, b: p + b, st.sampled_from(["AKIA", "ASIA"]), chars(string.ascii_uppercase + string.digits, 16)
    ),
    "github": st.builds(
        lambda p, b: p + b, st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]), chars(ALNUM, 36)
    ),
    "github_pat": st.builds(lambda a, b: f"github_pat_{a}_{b}", chars(ALNUM, 22), chars(ALNUM, 59)),
    "gitlab": st.builds(lambda b: "glpat-" + b, chars(ALNUM + "_-", 20)),
    "slack": st.builds(
        lambda p, a, b, c: f"{p}-{a}-{b}-{c}",
        st.sampled_from(["xoxb", "xoxp"]),
        chars(string.digits, 12),
        chars(string.digits, 13),
        chars(ALNUM, 24),
    ),
    "stripe": st.builds(
        lambda p, b: p + b, st.sampled_from(["sk_live_", "sk_test_", "rk_live_"]), chars(ALNUM, 24, 99)
    ),
    "openai": st.builds(lambda b: "sk-proj-" + b, chars(ALNUM, 48).filter(_mixed)),
    "anthropic": st.builds(lambda b: f"sk-ant-api03-{b}AA", chars(ALNUM + "_-", 93)),
    "google": st.builds(lambda b: "AIza" + b, chars(ALNUM + "_-", 35)),
    "jwt": st.builds(
        lambda a, b, c: "eyJ" + a + ".eyJ" + b + "." + c,
        chars(ALNUM + "_-", 20, 40),
        chars(ALNUM + "_-", 30, 80),
        chars(ALNUM + "_-", 43),
    ),
    "sendgrid": st.builds(lambda a, b: f"SG.{a}.{b}", chars(ALNUM + "_-", 22), chars(ALNUM + "_-", 43)),
    "npm": st.builds(lambda b: "npm_" + b, chars(ALNUM, 36)),
    "hf": st.builds(lambda b: "hf_" + b, chars(string.ascii_letters, 34)),
    "telegram": st.builds(
        lambda a, b: f"{a}:AA{b}", chars(string.digits, 10).filter(lambda s: s[0] != "0"), chars(ALNUM + "_-", 33)
    ),
}


def pem(body: str, kind: str) -> str:
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {kind}PRIVATE KEY-----\n" + "\n".join(lines) + f"\n-----END {kind}PRIVATE KEY-----"


CONTEXTS = [
    "export MY_VAR={s}",
    '{{"service": "billing", "credential": "{s}", "timeout": 5}}',
    "curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me",
    'client = Client(token="{s}", timeout=10)',
    "2024-05-13T16:16:40Z DEBUG using {s} (source=env)",
    '  value: "{s}"\n',
]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("shape", sorted(SECRETS))
def test_fresh_vendor_tokens_vanish_in_any_context(tier, shape):
    redactor = TIERS[tier]

    @FAST
    @given(secret=SECRETS[shape], context=st.sampled_from(CONTEXTS))
    def check(secret, context):
        # by design a token whose body spells a delimited placeholder word ("-fake-") is a placeholder
        assume(not is_allowed(secret))
        text = context.format(s=secret)
        out = redactor(text)
        assert secret not in out, (shape, text, out)
        assert "[REDACTED:" in out
        assert redactor(out) == out  # idempotent

    check()


ASSIGNMENTS = [
    "DB_PASSWORD={p}",
    'POSTGRES_PASSWORD="{p}"',
    "password: {p}",
    "  db_password: '{p}'",
    '{{"password": "{p}"}}',
    'PASSWORD = "{p}"',
    'conn = connect(host="db", user="app", password="{p}")',
    "[database]\npasswd = {p}\n",
    "'password' => '{p}',",
    "<password>{p}</password>",
    "spring.datasource.password={p}",
    "mysql -u root -p'{p}' shop",
    "sshpass -p '{p}' ssh deploy@10.0.4.7",
    "machine api.example.com\n  login bot\n  password {p}\n",
    "db.internal:5432:app:app_user:{p}",
    "requirepass {p}",
    "CREATE USER app WITH PASSWORD '{p}';",
    "postgresql://svc:{p}@db.internal:5432/app",
    "redis://:{p}@cache:6379/0",
    "jdbc:postgresql://db:5432/app?user=app&password={p}",
    "curl -u admin:{p} https://es.internal:9200/",
    "wget --http-user=admin --http-password={p} https://nexus/app.jar",
    "CLIENT_SECRET={p}",
    "client_secret: {p}",
    '$env:DB_PASSWORD = "{p}"',
    "the wifi password is {p} btw",
    "ansible_become_password: {p}",
]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("template", ASSIGNMENTS)
def test_fresh_passwords_vanish_in_every_syntax(tier, template):
    redactor = TIERS[tier]

    @settings(max_examples=15, deadline=None)
    @given(password=PASSWORD)
    def check(password):
        text = template.format(p=password)
        out = redactor(text)
        assert password not in out, (text, out)
        assert "[REDACTED:" in out
        assert redactor(out) == out

    check()


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(head=PASSWORD, tail=PASSWORD, escape=st.sampled_from(['": "', '", "', '"', "\t", "\\", "\n"]))
def test_a_password_with_a_json_escape_in_it_vanishes_whole(tier, head, tail, escape):
    """A quote, tab or backslash inside a JSON string is part of the value: none of it may stay behind."""
    password = head + escape + tail
    for text in (json.dumps({"password": password}), json.dumps({"user": "app", "db_password": password})[1:-1]):
        out = TIERS[tier](text)
        assert head not in out and tail not in out, (text, out)
        assert "[REDACTED:" in out


@pytest.mark.parametrize("tier", TIERS)
def test_an_escape_after_a_placeholder_or_in_prose_redacts_nothing(tier):
    for text in (
        json.dumps({"password": "None\n"}),
        json.dumps({"password": "%s\t"}),
        json.dumps({"content": "Reset the password: 'abc\nThen restart nginx and check the logs.\nIt's fine now"}),
    ):
        assert TIERS[tier](text) == text


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(
    body=chars(B64, 800, 1600),
    kind=st.sampled_from(["RSA ", "EC ", "", "OPENSSH ", "ENCRYPTED "]),
    escaped=st.booleans(),
)
def test_fresh_pem_blocks_vanish_whole(tier, body, kind, escaped):
    assume(len(set(body)) > 2)  # one character over and over is a placeholder ("0000..."), no key
    block = pem(body, kind)
    text = f'PRIVATE_KEY="{block}"' if not escaped else json.dumps({"private_key": block})
    out = TIERS[tier](text)
    for line in block.splitlines()[1:-1]:
        if len(line) >= 8:
            assert line not in out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(user=chars(string.ascii_lowercase, 3, 8), password=PASSWORD)
def test_fresh_basic_auth_headers_vanish(tier, user, password):
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    out = TIERS[tier](f'curl -H "Authorization: Basic {token}" https://jenkins.example.com/api/json')
    assert token not in out and "[REDACTED:" in out


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(sig=chars(ALNUM, 40, 44))
def test_fresh_sas_signatures_and_webhooks_vanish(tier, sig):
    sas = f"https://acme.blob.core.windows.net/c/b.bak?sv=2022-11-02&sp=rl&sig={sig}%3D"
    slack = f"https://hooks.slack.com/services/T0123ABCD/B0123ABCDE/{sig[:24]}"
    discord = f"https://discord.com/api/webhooks/1234567890123456789/{sig}"
    for text in (sas, slack, discord):
        out = TIERS[tier](f"POST {text} -> 200")
        assert sig[:24] not in out and "[REDACTED:" in out


LOOK_ALIKES = {
    "git_sha": chars(HEX, 40),
    "short_sha": chars(HEX, 7),
    "uuid": st.uuids().map(str),
    "sha512_sri": chars(B64, 86).map(lambda s: f"sha512-{s}=="),
    "sha256_hex": chars(HEX, 64),
}
LOOK_ALIKE_CONTEXTS = [
    "commit {s}",
    "request_id={s} status=200",
    '  "integrity": "{s}",',
    'checksum = "{s}"',
    "Digest: sha256:{s}",
    '{{"trace_id": "{s}"}}',
    "git cherry-pick {s}",
]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("shape", sorted(LOOK_ALIKES))
def test_look_alikes_stay_unchanged(tier, shape):
    redactor = TIERS[tier]

    @FAST
    @given(value=LOOK_ALIKES[shape], context=st.sampled_from(LOOK_ALIKE_CONTEXTS))
    def check(value, context):
        text = context.format(s=value)
        assert redactor(text) == text

    check()


PLACEHOLDERS = [
    "password=<your-password>",
    "API_KEY=xxx",
    'token: "changeme"',
    "DB_PASSWORD=changeme",
    "password=${DB_PASSWORD}",
    "token: ${{ secrets.GH_TOKEN }}",
    'password: "{{ .Values.db.password }}"',
    "token=$GITHUB_TOKEN",
    'password = "%(db_password)s"',
    "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    '"password": "********"',
    "Authorization: Bearer <token>",
    "postgres://app:${DB_PASSWORD}@db:5432/app",
    "password: [REDACTED]",
    '"api_key": "[REDACTED:api-key]"',
    'api_key = os.environ["API_KEY"]',
    "secret_key = settings.SECRET_KEY",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAGFkOpemHFkACqpEHEcUSodbNrH6FClEZCHDTiGD92p dev@laptop",
    "max_tokens=1024, temperature=0.2",
    "Token usage: input=1532 output=412",
]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_placeholders_templates_examples_and_public_keys_stay(tier, text):
    assert TIERS[tier](text) == text


@FAST
@given(text=st.text(alphabet=ALNUM + " =:\"'_-./\n{}[]$@", max_size=200))
def test_redaction_is_idempotent_on_arbitrary_text(text):
    for redactor in TIERS.values():
        once = redactor(text)
        assert redactor(once) == once


def test_keys_stay_readable_and_markers_name_the_rule():
    out = redact("DB_PASSWORD=Meadow!Saffron6792\nGITHUB_TOKEN=ghp_" + "a1B2" * 9)
    assert out == "DB_PASSWORD=[REDACTED:password]\nGITHUB_TOKEN=[REDACTED:github-token]"
    assert is_clean(out) and not is_clean("password: Autumn2022^JG35")


def _batch(args: list[str], lines: list[str]) -> subprocess.CompletedProcess:
    cmd = [str(AUTOMEM)] if AUTOMEM.exists() else [sys.executable, "-m", "automem"]
    return subprocess.run([*cmd, "redact", *args], input="".join(lines), capture_output=True, text=True, timeout=120)


def test_cli_batch_keeps_ids_and_reports_bad_lines_without_stopping():
    lines = [
        json.dumps({"id": "a", "text": "password: Autumn2022^JG35"}) + "\n",
        "not json\n",
        json.dumps({"id": 7, "text": "nothing here"}) + "\n",
        json.dumps({"id": "x"}) + "\n",
    ]
    proc = _batch(["--batch"], lines)
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0] == {"id": "a", "text": "password: [REDACTED:password]"}
    assert out[1]["id"] is None and "error" in out[1]
    assert out[2] == {"id": 7, "text": "nothing here"}
    assert out[3]["id"] == "x" and "error" in out[3]
    assert proc.returncode == 1 and "line 2" in proc.stderr


def test_cli_text_mode_and_fast_tier():
    for args in ([], ["--tier", "fast"]):
        proc = _batch(args, ["export GITHUB_TOKEN=ghp_" + "Zz9" * 12 + "\n"])
        assert proc.returncode == 0 and proc.stdout == "export GITHUB_TOKEN=[REDACTED:github-token]\n"


@pytest.mark.skipif(not SCORE.exists(), reason="shared/corpus/secrets is not there")
@pytest.mark.parametrize("tier,min_recall,max_fp", [("full", 0.99, 0.01), ("fast", 0.99, 0.01)])
def test_corpus_score(tier, min_recall, max_fp, tmp_path):
    cmd = [str(AUTOMEM)] if AUTOMEM.exists() else [sys.executable, "-m", "automem"]
    out = tmp_path / "score.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(SCORE),
            "--batch",
            "--json-out",
            str(out),
            "--",
            *cmd,
            "redact",
            "--batch",
            "--tier",
            tier,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    summary = json.loads(out.read_text())["summary"]
    assert summary["errors"] == 0, proc.stdout[-2000:]
    assert summary["recall"] >= min_recall, proc.stdout[-3000:]
    assert summary["strict_recall"] >= min_recall, proc.stdout[-3000:]
    assert summary["fp_rate"] <= max_fp, proc.stdout[-3000:]


def test_json_escaped_pem_and_a_second_cli_password_in_one_text():
    """Regressions found by the end-to-end test: JSON text puts "\\n" right before a PEM header, and a
    windowed rule (sshpass -p) must redact every occurrence, not only the first in its window."""
    from automem.redact.fast import redact_fast
    from automem.redact.full import redact

    body = "MHcCAQEEIZJc2Uc" + "Q" * 40
    escaped = '{"command":"cat key\\n-----BEGIN EC PRIVATE KEY-----\\n' + body + '\\n"}'
    two = "sshpass -p 'Zq8wXv3Lr5Tn1Kp0Mb7' ssh a@h\n\n## Result\n\nit was sshpass -p 'Hy6Uj2Ik9Ol4Pw3Eq1R' ssh b@h"
    for tier in (redact_fast, redact):
        assert body not in tier(escaped)
        out = tier(two)
        assert "Zq8wXv3Lr5Tn1Kp0Mb7" not in out and "Hy6Uj2Ik9Ol4Pw3Eq1R" not in out


LOWER_WORDS = chars(string.ascii_lowercase, 8, 24).filter(lambda w: w not in ("password", "changeme", "required"))


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(word=LOWER_WORDS, key=st.sampled_from(["DB_PASSWORD", "password", "API_TOKEN", "client_secret", "--password"]))
def test_an_all_lower_case_password_in_key_value_form_vanishes(tier, word, key):
    """An identifier-shaped literal after `KEY=` is a secret: `DB_PASSWORD=correcthorsebatterystaple` used to pass."""
    assume(not is_allowed(word))
    for text in (f"{key}={word}", f"export {key}={word}", f"curl 'https://x.example/a?{key.lstrip('-')}={word}'"):
        out = TIERS[tier](text)
        assert word not in out and "[REDACTED" in out, (text, out)


@pytest.mark.parametrize("tier", TIERS)
def test_names_in_code_after_an_equals_sign_stay(tier):
    for text in (
        "password = user_password",
        "token=tokenValue",
        "config.password=settings.db",
        "password=None",
        "secret=required",
        "apiKey: process.env.STRIPE_SECRET_KEY_2",
        "token = os.environ.GITHUB_TOKEN_V2",
        "password: config.DB_PASSWORD_2",
    ):
        assert TIERS[tier](text) == text, text
    # a value spelt like such a name, on its own or after an object with a machine-made part, is still a value
    for text, value in (
        ("password: hunter_22", "hunter_22"),
        ("DB_PASS=Red_Apple_7.Green_Pear_9", "Red_Apple_7"),
        ("secret: Hunter_Fox_42.Blue", "Hunter_Fox_42"),
        ("api_key: acme.Prod_Key_77", "Prod_Key_77"),
        ("token = settings.sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ):
        assert value not in TIERS[tier](text), text


@pytest.mark.parametrize("tier", TIERS)
def test_a_token_as_the_url_user_name_and_htpasswd_arguments_vanish(tier):
    token = "Zk3q9WmT4vX8bN2cR6yH1jL5"
    out = TIERS[tier](f"git clone https://{token}@github.com/o/r.git")
    assert token not in out and "@github.com/o/r.git" in out
    out = TIERS[tier]("htpasswd -b -c /etc/nginx/.htpasswd ana swordfishlake")
    assert "swordfishlake" not in out and "ana" in out
    for text in (
        "https://user@example.com/x",
        "git@github.com:o/r.git",
        "SENTRY_DSN=https://9f0c6cd1a5b24ae2a0a4b6d0e8f1a2b3@o95.ingest.sentry.io/1",
    ):
        assert TIERS[tier](text) == text, text


@pytest.mark.parametrize("tier", TIERS)
@FAST
@given(value=st.text(alphabet=string.ascii_letters, min_size=12, max_size=40))
def test_every_value_of_a_kubernetes_secret_manifest_vanishes(tier, value):
    """Under data:/stringData: of a `kind: Secret` document a value is a credential whatever its key or letters
    (base64 of a password can be letters only); kubectl prints data: before kind:. A ConfigMap's data stays."""
    assume(not is_allowed(value))
    for text in (
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {value}\n",
        f"apiVersion: v1\ndata:\n  DB_PASS: {value}\n  tls.crt: |\n    {value}\nkind: Secret\nmetadata:\n  name: x\n",
        f"---\nkind: Secret\nstringData:\n  url: '{value}'\n---\n",
        f"apiVersion: v1\r\nkind: Secret  # creds\r\ndata:\r\n  DB_PASS: {value}\r\n",
        f"kind: Secret\ndata:\n  DB_PASS:\n    {value}\n",
        f"kind: List\nitems:\n- apiVersion: v1\n  data:\n    pw: {value}\n  kind: Secret\n- kind: ConfigMap\n",
    ):
        out = TIERS[tier](text)
        assert value not in out and "[REDACTED" in out, (text, out)
    for other in (
        f"---\nkind: Secret\ndata: {{}}\n---\nkind: ConfigMap\ndata:\n  mode: {value}\n",
        # a ConfigMap in the same List, a chart's values in another fence of the same message
        "kind: List\nitems:\n- kind: Secret\n  data:\n    pw: c2VjcmV0\n"
        f"- data:\n    mode: {value}\n  kind: ConfigMap\n",
        f"```yaml\nkind: Secret\ndata:\n  pw: c2VjcmV0\n```\n```yaml\nservice:\n  data:\n    mode: {value}\n```\n",
    ):
        assert value in TIERS[tier](other), other


def test_a_long_list_of_kubernetes_secrets_is_read_once(monkeypatch):
    """Each Secret reads only its own item's lines: in a List of 400, the lines read are a few times the lines there
    are (reading the whole text for each Secret would be 400 times)."""
    from automem.redact import rules

    item = "- apiVersion: v1\n  data:\n    password: aHVudGVyaHVudGVy\n  kind: Secret\n  metadata:\n    name: s{i}\n"
    text = "apiVersion: v1\nitems:\n" + "".join(item.format(i=i) for i in range(400)) + "kind: List\n"
    reads = []
    real = rules._indent_of
    monkeypatch.setattr(rules, "_indent_of", lambda *a: reads.append(1) or real(*a))
    assert len(rules.k8s_secret_spans(text)) == 400
    assert len(reads) < 4 * text.count("\n")


def test_a_lower_case_password_never_reaches_a_memory_or_its_file_name(tmp_path, automem_home, run_hook):
    """End to end: the prompt through the real hook, the extractor, the memory file and its name, the index."""
    from automem import consent
    from automem.extract.pipeline import extract
    from automem.home import Home

    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    env = {**os.environ, "AUTOMEM_HOME": str(automem_home), "HOME": str(tmp_path), "AUTOMEM_MODEL": "off"}
    secret = "correcthorsebatterystaple"
    run_hook(
        "UserPromptSubmit",
        {
            "session_id": "pw-session",
            "cwd": str(tmp_path),
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"Always use DB_PASSWORD={secret} from now on.",
        },
        env,
    )
    extract(Home(automem_home), session_id="pw-session", cwd=str(tmp_path))
    found = [p for p in automem_home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    named = [p for p in automem_home.rglob("*") if secret in p.name]
    assert found == [] and named == []


def test_detect_secrets_loads_without_requests_and_can_never_go_online():
    """The full pass loads every detect-secrets plugin without importing ``requests`` (its online checks), and the
    same plugins as with the real module; the stand-in they hold refuses any request."""
    import subprocess
    import sys

    probe = (
        "import sys, automem.redact.detect_secrets_plugins as f; plugins = f.plugins(); "
        "print(len(plugins), 'requests' in sys.modules); "
        "import detect_secrets.plugins.base as base\n"
        "try:\n    base.requests.get('https://example.com')\nexcept Exception as exc:\n    print(type(exc).__name__)"
    )
    lazy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    real = subprocess.run(
        [sys.executable, "-c", "import requests, automem.redact.detect_secrets_plugins as f; print(len(f.plugins()))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    count, loaded, refused = lazy.stdout.split()
    assert loaded == "False" and refused == "_Refused" and int(count) == int(real.stdout) > 20, lazy.stderr


def test_detect_secrets_plugins_load_without_hashlib_or_inspect_and_lose_neither():
    """What the plugin base imports for work the full pass never asks (hashing a secret for a baseline, calling a
    verifier) is imported on first use: loading a plugin brings in neither OpenSSL's hashlib nor inspect, and both
    work when used."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from automem.redact import detect_secrets_plugins as d\n"
        "d._instance('high_entropy_strings', 'Base64HighEntropyString')\n"
        "deferred = ('hashlib', '_hashlib', 'inspect', 'detect_secrets.util.inject', 'detect_secrets.settings')\n"
        "print(sorted(m for m in deferred if m in sys.modules))\n"
        "import detect_secrets.core.potential_secret as ps, hashlib\n"
        "print(ps.PotentialSecret('t', 'f', 'abc').secret_hash == hashlib.sha1(b'abc').hexdigest())\n"
        "from detect_secrets.util.inject import get_injectable_variables\n"
        "def verify(secret, context): pass\n"
        "print(sorted(get_injectable_variables(verify)), type(sys.modules['detect_secrets.util.inject']).__name__)\n"
        "import detect_secrets.plugins.base as base\n"
        "print(type(base.get_settings().filters).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split("\n")[:4] == ["[]", "True", "['context', 'secret'] module", "dict"], out.stderr


def test_detect_secrets_plugins_load_without_its_scanner_and_as_its_own_walk_lists_them():
    """The plugins load without detect-secrets' package ``__init__`` (its file scanner, a process pool, logging);
    they are the classes, in the order, of its own walk of the plugins package, and the package still works after
    (its ``__init__`` runs on first use). A plugin the full pass leaves out is the only one of its module."""
    import subprocess
    import sys

    probe = (
        "import sys, automem.redact.full as f, automem.redact.detect_secrets_plugins as d\n"
        "every = d.plugins(); fewer = d.plugins(f._NEVER_RUN | f._ENGINE_COVERS)\n"
        "print(sorted(m for m in ('multiprocessing', 'logging', 'detect_secrets.core.scan') if m in sys.modules))\n"
        "from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class as walk\n"
        "from detect_secrets import SecretsCollection\n"
        "print([type(p) for p in every] == list(walk().values()))\n"
        "print([type(p).__name__ for p in fewer] == [c.__name__ for c in walk().values()\n"
        "      if c.__name__ not in f._NEVER_RUN | f._ENGINE_COVERS])\n"
        "import importlib, inspect\n"
        "for cls, module in d._PLUGIN_MODULES.items():\n"
        "    m = importlib.import_module('detect_secrets.plugins.' + module)\n"
        "    print([c.__name__ for c in walk().values() if c.__module__ == m.__name__] == [cls])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split("\n")[:1] == ["[]"], out.stderr
    from automem.redact import detect_secrets_plugins

    assert out.stdout.split()[1:] == ["True"] * (2 + len(detect_secrets_plugins._PLUGIN_MODULES)), out.stderr


def test_redact_many_redacts_each_text_at_least_as_its_own_pass_does():
    """One scan of several texts joined: on the labelled secrets (ours and the shared corpus), in batches of
    twelve, every secret the pass removes from a text alone is removed from it in the batch too."""
    import json
    from pathlib import Path

    from automem.redact.full import redact, redact_many

    root = Path(__file__).resolve().parents[1]
    sources = [
        root / "tests" / "data" / "secrets_extra.jsonl",
        root.parent / "shared" / "corpus" / "secrets" / "cases.jsonl",
    ]
    cases = [json.loads(line) for src in sources if src.exists() for line in src.open(encoding="utf-8")]
    assert len(cases) > 100
    checked = 0
    for i in range(0, len(cases), 12):
        batch = cases[i : i + 12]
        for case, together in zip(batch, redact_many([c["text"] for c in batch]), strict=True):
            alone = redact(case["text"])
            for secret in case.get("secrets") or []:
                if secret not in alone:
                    checked += 1
                    assert secret not in together, case.get("id")
    assert checked > 100


def test_plain_paths_and_automems_own_ids_open_no_window_a_random_part_does():
    """A window around a quoted string loads the entropy detectors: a file's path from a tool call or an entry's id
    is not worth it; a path holding a machine-made part still is."""
    from automem.redact.full import _suspicious_spots

    plain = [
        '{"file_path": "/Users/ana.b07/Documents/AndroidProject/app-188x2/src/main/LoginViewModel.kt"}',
        '{"file_path": "/home/user/.claude/projects/-home-user-proj/4f0c2a1e.jsonl"}',
        'id: "2026-12-05T11-54-35-44b28a"',
        '"created": "2025-06-01T10:22:33.123Z"',
    ]
    for text in plain:
        assert _suspicious_spots(text) == [], text
    for text in (
        '{"path": "/srv/keys/Zq81kLm2Nx7wPq4rT6yUa9/config.json"}',
        '{"blob": "/9j4AAQSkZJRgABAQ/AAAQABAAD2wBDAAgGBgcG/Zq81kLm2"}',
        '"Zq81kLm2Nx7wPq4rT6yUa9Xc"',
    ):
        assert _suspicious_spots(text) != [], text
