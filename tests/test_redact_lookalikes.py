"""Look-alikes the own rules used to flag: each stays as it is in both tiers, and a real secret beside it still goes."""

from __future__ import annotations

import random
import string

import pytest

from automem.redact.fast import redact_fast
from automem.redact.full import redact

TIERS = {"fast": redact_fast, "full": redact}
ALNUM = string.ascii_letters + string.digits


def _pw(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(5)) + "!" + str(rng.randrange(1000, 9999)) + "QZX"


LOOKALIKES = {
    "curl -u <user:password>": "curl -u <user:password> https://api.example.com/v1/items",
    "curl -u USERNAME:PASSWORD then a URL": "Run `curl -u USERNAME:PASSWORD https://registry.acme.io/v2/_catalog`.",
    "curl -u user:pass": "curl -u user:pass http://localhost:8080/health",
    "hidden authenticity_token": '<input type="hidden" name="authenticity_token" '
    'value="Vq1Xh8zTQmlsZbPqS3VSoRVkSz3PYS4SJ4hmn3uAQ5WwS2P6xfwx" autocomplete="off">',
    "hidden token shaped like an Artifactory key": '<input type="hidden" name="authenticity_token" '
    'value="AP6t2dyK3uFFWWpFhRpaaYFtHHircnCBDYqx5TV91O0gdjtDp9vc25VRQ0RrkS1t" autocomplete="off">',
    "csrf meta": '<meta name="csrf-token" content="Vq1Xh8zTQmlsZbPqS3VSoRVkSz3PYS4SJ4hmn3uAQ5WwS2P6xfwx" />',
    "bucket_key path": '{"bucket_key": "uploads/2024/06/avatars/user-1842.png", "region": "eu-west-1"}',
    "bucket_key id": '{"bucket_key": "ratelimit:9f3a7c2e1b4d:2024-06-01T10"}',
    "schemaKey iglu": "const schemaKey = 'iglu:com.acme/checkout_event/jsonschema/1-0-2';",
    "schemaKey dotted": "schemaKey = 'com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'",
    "maven get": "mvn dependency:get -Dartifact=io.jsonwebtoken:jjwt-api:0.12.6",
    "gradle": "implementation 'io.jsonwebtoken:jjwt-impl:0.12.6'",
    "git log maven": "    Bump io.jsonwebtoken:jjwt-api from 0.11.5 to 0.12.6",
    "xml schema type": '<xs:element name="password" type="xs:string" minOccurs="0"/>',
    "xml schema secret type": '<xsd:attribute name="secretKey" type="tns:SecretKeyReferenceType"/>',
    "external secret": "kind: ExternalSecret\nspec:\n  data:\n  - secretKey: password\n    remoteRef:\n "
    "     key: prod/db/password\n",
    "shippo placeholder": "SHIPPO_API_TOKEN=shippo_test_<your-token>",
    "harness placeholder": "HARNESS_API_KEY=pat.<account-id>.<token-id>.<secret>",
    "openshift placeholder": "oc login --token=sha256~<token> --server=https://api.cluster:6443",
    "zero uuid": '{"hubspot_api_key": "00000000-0000-0000-0000-000000000000"}',
    "sendgrid xs": "SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "mysql -p prompt": "mysql -h db.internal -u root -p app_prod",
    "secrets manager arn": 'secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"',
    "arn in a command": "aws secretsmanager get-secret-value --secret-id "
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/api-Xy12Zq",
}


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("name", LOOKALIKES)
def test_lookalike_stays(tier, name):
    text = LOOKALIKES[name]
    assert TIERS[tier](text) == text


@pytest.mark.parametrize("tier", TIERS)
def test_a_key_in_a_form_field_named_like_a_token_still_goes(tier):
    """Only a field named as an anti-forgery token (authenticity_token, csrf..., _token) is public to the page."""
    cases = [
        ("access_token", "Zq81kLm2Nx7wPqRt5Yu8iAb3Cd4Ef5Gh"),
        ("api_token", "AKCp8jQcmP3uX2tRq9LkZx7WnB4vYs6HdGf1MeNa0PoUiTr5SyEc"),
    ]
    for name, value in cases if tier == "full" else cases[:1]:  # an Artifactory key is known to detect-secrets only
        text = f'<input type="password" name="{name}" value="{value}">'
        assert value not in TIERS[tier](text), text
    text = '<meta name="x-csrf-token" content="Vq1Xh8zTQmlsZbPqS3VSoRVkSz3PYS4SJ4hmn3uAQ5WwS2P6xfwx" />'
    assert TIERS[tier](text) == text


@pytest.mark.parametrize("tier", TIERS)
def test_real_secrets_next_to_the_lookalikes_still_go(tier):
    rng = random.Random()
    pw = _pw(rng)
    cases = [
        (f"curl -u deploy:{pw} https://ci.acme.io/api/json", pw),
        (f"mysql -h db -u root -p{pw} app_prod", pw),
        (f"docker login -u deploy -p {pw} registry.acme.io", pw),
        (f'{{"api_key": "{pw}Zq81"}}', pw),
        (f"SHIPPO_API_TOKEN=shippo_test_{''.join(rng.choice('0123456789abcdef') for _ in range(40))}", "shippo_test_"),
    ]
    for text, secret in cases:
        assert secret not in TIERS[tier](text), text


@pytest.mark.parametrize("tier", TIERS)
def test_escaped_tokens_and_long_escape_runs(tier):
    """A token whose first letters are escaped (\\x67hp_..., \\u0067hp_...) goes; a long run of escapes in JSON text
    (matched once per run, not once per escape) and escaped prose stay."""
    rng = random.Random()
    tok = "".join(rng.choice(ALNUM) for _ in range(36))
    for text in (f"printf '\\x67hp_{tok}'", f'{{"token": "\\u0067hp_{tok}"}}'):
        assert tok not in TIERS[tier](text)
    run = '{"blob": "' + "\\u0000" * 20000 + 'caf\\u00e9_and_more_words"}'
    assert TIERS[tier](run) == run
