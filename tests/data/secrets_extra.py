"""Synthetic secrets cases beyond shared/corpus/secrets: vendor kinds, encoded forms, dumps, look-alikes.

Every secret is random, of its vendor's shape (never a real credential). ``cases(rng)`` builds the list;
``python tests/data/secrets_extra.py`` rewrites tests/data/secrets_extra.jsonl from seed 12 (the file the
tests score); the tests also score a freshly seeded run so that no rule is fitted to one set of strings.
Record shape as in the shared corpus: {"id","text","secrets","type","negative","context"}.
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
from pathlib import Path

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEX = "0123456789abcdef"


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        while True:
            v = "".join(self.r.choice(alphabet) for _ in range(n))
            # random strings of these lengths have digits and letters; reject the rare one that does not
            if (
                n < 8
                or alphabet in (DIG, HEX + HEX.upper())
                or (any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
            ):
                return v

    def hex(self, n: int) -> str:
        return self.s(n, HEX)

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(bytes(self.r.randrange(256) for _ in range(nbytes))).decode()

    def b64url(self, nbytes: int) -> str:
        return base64.urlsafe_b64encode(bytes(self.r.randrange(256) for _ in range(nbytes))).decode().rstrip("=")

    def jwt(self) -> str:
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        body = json.dumps(
            {"sub": self.s(10, DIG), "name": "svc-" + self.s(6, LOW), "iat": 1700000000 + self.r.randrange(10**7)}
        )
        payload = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
        return f"{head}.{payload}.{self.b64url(32)}"

    def password(self) -> str:
        return self.s(5, LOW) + self.r.choice("!#%^*-_") + self.s(4, DIG) + self.s(3, UP)

    def lower_pw(self) -> str:
        words = ["correct", "horse", "battery", "staple", "violet", "granite", "mango", "orbit", "tundra", "pepper"]
        return "".join(self.r.sample(words, 3))


def cases(rng: random.Random) -> list[dict]:
    g = Gen(rng)
    out: list[dict] = []

    def pos(kind: str, ctx: str, text: str, *secrets: str) -> None:
        out.append(
            {
                "id": f"x{len(out) + 1:04d}",
                "text": text,
                "secrets": list(secrets),
                "type": kind,
                "negative": False,
                "context": ctx,
            }
        )

    def neg(kind: str, ctx: str, text: str) -> None:
        out.append(
            {"id": f"x{len(out) + 1:04d}", "text": text, "secrets": [], "type": kind, "negative": True, "context": ctx}
        )

    # ---------------------------------------------------------------- vendor kinds the held-out suite missed
    for _ in range(3):
        jb = base64.b64encode(g.jwt().encode()).decode()
        pos("jwt_base64", "env", f"AUTH_BLOB={jb}", jb)
        jb = base64.b64encode(g.jwt().encode()).decode()
        pos("jwt_base64", "json", f'{{"session": "{jb}", "ok": true}}', jb)
    for _ in range(3):
        pw = g.b64(18)
        tok = g.b64(30)
        pos(
            "k8s_secret_data",
            "yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\n  namespace: prod\ntype: Opaque\ndata:\n"
            f"  password: {pw}\n  api-token: {tok}\n",
            pw,
            tok,
        )
    for _ in range(3):
        cred = f"{g.hex(8)}:{g.hex(8)}"
        pos("sidekiq", "env", f"BUNDLE_ENTERPRISE__CONTRIBSYS__COM={cred}", cred)
        cred = f"{g.hex(8)}:{g.hex(8)}"
        pos("sidekiq", "shell", f"bundle config --local gems.contribsys.com {cred}", cred)
        u, p = g.hex(8), g.hex(8)
        pos(
            "sidekiq",
            "gemfile",
            f'source "https://{u}:{p}@gems.contribsys.com/" do\n  gem "sidekiq-pro"\nend',
            f"{u}:{p}",
        )
    for _ in range(3):
        t = "squ_" + g.hex(40)
        pos("sonar", "properties", f"sonar.host.url=https://sonar.acme.io\nsonar.token={t}\n", t)
        t = "sqp_" + g.hex(40)
        pos("sonar", "shell", f"mvn sonar:sonar -Dsonar.login={t}", t)
        t = g.hex(40)
        pos("sonar", "env", f"SONAR_TOKEN={t}", t)
    for _ in range(3):
        pw = g.password() + g.s(6)
        pos(
            "nuget_password",
            "xml",
            '<configuration>\n  <packageSourceCredentials>\n    <acme>\n      <add key="Username" value="build" />\n'
            f'      <add key="ClearTextPassword" value="{pw}" />\n    </acme>\n  </'
            f"packageSourceCredentials>\n</configuration>",
            pw,
        )
    for prefix in ("EZAK", "EZTK", "EZAK"):
        t = prefix + g.s(54, LOW + DIG)
        pos("easypost", "env", f"EASYPOST_API_KEY={t}", t)
        t = prefix + g.s(54, LOW + DIG)
        pos("easypost", "python", f'client = easypost.EasyPostClient("{t}")', t)
    for _ in range(3):
        t = g.uuid()
        pos("snyk", "env", f"SNYK_TOKEN={t}", t)
        t = g.uuid()
        pos("snyk", "shell", f"snyk auth {t}", t)
    for _ in range(3):
        t = "p8e-" + g.s(32, HEX + "ABCDEF")
        pos("adobe", "env", f"ADOBE_CLIENT_SECRET={t}", t)
        t = g.hex(32)
        pos("adobe", "json", f'{{"adobe_client_id": "{t}", "region": "us"}}', t)
    for _ in range(3):
        k, s = g.s(16, UP + DIG), g.s(64, ALNUM + "+/")
        pos(
            "confluent",
            "properties",
            f"bootstrap.servers=pkc-{g.s(5, LOW + DIG)}.us-east-1.aws.confluent.cloud:9092\n"
            f"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
            f"required username='{k}' password='{s}';",
            k,
            s,
        )
        k = g.s(16, UP + DIG)
        pos("confluent", "env", f"CONFLUENT_CLOUD_API_KEY={k}", k)
    for _ in range(3):
        t = f"FLWSECK_TEST-{g.hex(32)}-X"
        pos("flutterwave", "env", f"FLW_SECRET_KEY={t}", t)
        t = f"FLWSECK-{g.hex(32)}-X"
        pos("flutterwave", "js", f"const flw = new Flutterwave(pub, '{t}');", t)
        t = "FLWSECK_TEST" + g.hex(12)
        pos("flutterwave", "env", f"FLW_ENCRYPTION_KEY={t}", t)
    for _ in range(3):
        t = f"pat.{g.s(22)}.{g.s(24, HEX)}.{g.s(20)}"
        pos("harness", "env", f"HARNESS_API_KEY={t}", t)
        t = f"sat.{g.s(22)}.{g.s(24, HEX)}.{g.s(20)}"
        pos("harness", "shell", f"curl -H 'x-api-key: {t}' https://app.harness.io/gateway/ng/api/user/currentUser", t)
    for _ in range(3):
        t = "lin_api_" + g.s(40)
        pos("linear", "env", f"LINEAR_API_KEY={t}", t)
        t = g.hex(32)
        pos("linear", "json", f'{{"linear_client_secret": "{t}"}}', t)
    for _ in range(3):
        t = g.s(25)
        pos("messagebird", "env", f"MESSAGEBIRD_API_KEY={t}", t)
        t = g.s(25)
        pos("messagebird", "js", f"const messagebird = require('messagebird').initClient('{t}');", t)
    for _ in range(3):
        t = f"SG.{g.s(22, ALNUM + '_-')}.{g.s(43, ALNUM + '_-')}"
        pos("sendgrid", "env", f"SENDGRID_API_KEY={t}", t)
        t = f"SG.{g.s(22, ALNUM + '_-')}.{g.s(43, ALNUM + '_-')}"
        pos("sendgrid", "python", f"sg = SendGridAPIClient('{t}')", t)
    for mode in ("live", "test", "live"):
        t = f"shippo_{mode}_{g.hex(40)}"
        pos("shippo", "env", f"SHIPPO_API_TOKEN={t}", t)
        t = f"shippo_{mode}_{g.hex(40)}"
        pos("shippo", "python", f'shippo.config.api_key = "{t}"', t)
    for _ in range(3):
        t = g.s(24)
        pos("atlassian", "env", f"JIRA_API_TOKEN={t}", t)
        t = "ATATT3xFfGF0" + g.s(170, ALNUM + "_-") + "=" + g.s(8, HEX.upper())
        pos("atlassian", "shell", f"curl -u dev@acme.io:{t} https://acme.atlassian.net/rest/api/3/myself", t)
        t = g.s(24)
        pos("atlassian", "json", f'{{"confluence_token": "{t}"}}', t)
    for _ in range(3):
        t = f"{g.r.choice('MN')}{g.s(23)}.{g.s(6, ALNUM + '_-')}.{g.s(27, ALNUM + '_-')}"
        pos("discord", "env", f"DISCORD_BOT_TOKEN={t}", t)
        t = g.hex(64)
        pos("discord", "json", f'{{"discord_api_key": "{t}"}}', t)
        t = g.s(32, ALNUM + "_-")
        pos("discord", "env", f"DISCORD_CLIENT_SECRET={t}", t)
    for _ in range(3):
        t = g.s(24, LOW + DIG)
        pos("etsy", "env", f"ETSY_API_KEY={t}", t)
        t = g.s(24, LOW + DIG)
        pos("etsy", "js", f"const etsyKeystring = '{t}';", t)
    for _ in range(3):
        t = g.uuid()
        pos("hubspot", "env", f"HUBSPOT_API_KEY={t}", t)
        t = f"pat-na1-{g.uuid()}"
        pos("hubspot", "python", f'client = HubSpot(access_token="{t}")', t)
    for _ in range(3):
        t = "sha256~" + g.s(43, ALNUM + "_-")
        pos("openshift", "shell", f"oc login --token={t} --server=https://api.ocp.acme.io:6443", t)
        t = "sha256~" + g.s(43, ALNUM + "_-")
        pos("openshift", "yaml", f"users:\n- name: admin\n  user:\n    token: {t}\n", t)

    # ---------------------------------------------------------------- red-team shapes and encoded forms
    for _ in range(3):
        pw = g.lower_pw()
        pos("lowercase_password", "env", f"DB_HOST=db.internal\nDB_PASSWORD={pw}\nDB_USER=app", pw)
        pw = g.lower_pw()
        pos("lowercase_password", "ini", f"[client]\npassword={pw}\n", pw)
        t = "ghp_" + g.s(36)
        pos("url_user_token", "git", f"git clone https://{t}@github.com/acme/infra.git", t)
        inner = f"API_SECRET={g.s(28)}"
        enc = base64.b64encode(inner.encode()).decode()
        pos("base64_env_line", "shell", f"echo {enc} | base64 -d >> .env", enc)
        pw = g.password()
        pos("htpasswd", "shell", f"htpasswd -b -c /etc/nginx/.htpasswd admin {pw}", pw)
        t = g.s(36)
        pos("json_unicode_escape", "json", f'{{"token": "\\u0067hp_{t}"}}', t)
        t = g.s(36)
        pos("hex_escape", "shell", f"printf '\\x67hp_{t}'", t)

    # ---------------------------------------------------------------- formats and command lines
    for _ in range(3):
        pw1, pw2, key = g.lower_pw(), g.password(), "sk_live_" + g.s(24)
        pos(
            "dotenv_mixed",
            "dotenv",
            f"APP_ENV=production\nAPP_DEBUG=false\nredis_password={pw1}\nSMTP_PASSWORD={pw2}\nSTRIPE_SECRET_KEY={key}\nLOG_LEVEL=info\n",
            pw1,
            pw2,
            key,
        )
        pw = g.password()
        pos(
            "env_dump",
            "env",
            f"HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin\nSHELL=/bin/zsh\nPGPASSWORD={pw}\nTERM=xterm-256color\n",
            pw,
        )
        t = "xoxb-" + g.s(11, DIG) + "-" + g.s(13, DIG) + "-" + g.s(24)
        pos("toml", "toml", f'[slack]\nchannel = "#deploys"\nbot_token = "{t}"\n', t)
        pw = g.password()
        pos("xml", "xml", f"<dataSource>\n  <user>app</user>\n  <password>{pw}</password>\n</dataSource>", pw)
        pw = g.password()
        pos("shell_history", "history", f" 1021  cd infra\n 1022  export MYSQL_PWD='{pw}'\n 1023  make migrate", pw)
        pw = g.password()
        pos("mysql_cli", "shell", f"mysql -h db.internal -u root -p{pw} app_prod < dump.sql", pw)
        pw = g.password()
        pos("psql_url", "shell", f'psql "postgresql://app:{pw}@db.internal:5432/app?sslmode=require" -c "select 1"', pw)
        pw = g.password()
        pos("docker_login", "shell", f"docker login -u deploy -p {pw} registry.acme.io", pw)
        t = "glpat-" + g.s(20, ALNUM + "_-")
        pos("git_remote", "git", f"git remote set-url origin https://oauth2:{t}@gitlab.acme.io/team/app.git", t)
        t = g.s(32)
        pos("curl_header", "shell", f"curl -s -H 'X-Api-Key: {t}' https://api.acme.io/v1/orders", t)
        u, pw = "deploy", g.password()
        pos("curl_user", "shell", f"curl -u {u}:{pw} https://ci.acme.io/api/json", pw)
        t = g.jwt()
        pos("yaml_jwt", "yaml", f"auth:\n  bearer: {t}\n", t)

    # ---------------------------------------------------------------- look-alikes that must stay
    neg("curl_template", "shell", "curl -u <user:password> https://api.example.com/v1/items")
    neg("curl_template", "docs", "Authenticate with `curl -u USERNAME:PASSWORD https://registry.acme.io/v2/_catalog`.")
    neg("curl_template", "shell", 'curl -u "$CI_USER:$CI_TOKEN" https://ci.acme.io/api/json')
    neg("curl_template", "shell", "curl -u user:pass http://localhost:8080/health")
    for _ in range(2):
        neg(
            "authenticity_token",
            "html",
            f'<form action="/session" method="post"><input type="hidden" '
            f'name="authenticity_token" value="{g.b64(48)}" autocomplete="off"></form>',
        )
        neg("csrf_meta", "html", f'<meta name="csrf-token" content="{g.b64(48)}" />')
    neg("bucket_key", "json", '{"bucket_key": "uploads/2024/06/avatars/user-1842.png", "region": "eu-west-1"}')
    neg("bucket_key", "json", f'{{"bucket_key": "ratelimit:{g.hex(12)}:2024-06-01T10", "hits": 3}}')
    neg("bucket_key", "python", 'bucket_key = f"{tenant}/{date:%Y/%m/%d}/events.parquet"')
    neg("schema_key", "js", "const schemaKey = 'iglu:com.acme/checkout_event/jsonschema/1-0-2';")
    neg("schema_key", "python", "schemaKey = 'com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'")
    neg("schema_key", "ts", "schemaKey = 'userPreferencesV2'")
    neg("maven_coordinates", "shell", "mvn dependency:get -Dartifact=io.jsonwebtoken:jjwt-api:0.12.6")
    neg(
        "maven_coordinates",
        "gradle",
        "implementation 'io.jsonwebtoken:jjwt-impl:0.12.6'\nruntimeOnly 'io.jsonwebtoken:jjwt-jackson:0.12.6'",
    )
    neg(
        "maven_coordinates",
        "xml",
        "<dependency>\n  <groupId>io.jsonwebtoken</groupId>\n  <artifactId>jjwt-api</"
        "artifactId>\n  <version>0.12.6</version>\n</dependency>",
    )
    neg("xml_schema_type", "xml", '<xs:element name="password" type="xs:string" minOccurs="0"/>')
    neg(
        "xml_schema_type",
        "xml",
        '<xsd:complexType name="ApiKeyCredentialType">\n  <xsd:attribute '
        'name="secretKey" type="tns:SecretKeyReferenceType"/>\n</xsd:complexType>',
    )
    neg("xml_schema_type", "xml", '<element name="token" type="wsse:BinarySecurityTokenType"/>')
    neg(
        "external_secret",
        "yaml",
        "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nmetadata:\n  name: db-password\nspec:\n"
        "  refreshInterval: 1h\n  secretStoreRef:\n    name: vault-backend\n    kind: ClusterSecretStore\n  target:\n"
        "    name: db-password\n  data:\n  - secretKey: password\n    remoteRef:\n      "
        "key: prod/db/password\n      property: password\n",
    )
    neg(
        "external_secret",
        "yaml",
        "kind: ExternalSecret\nspec:\n  dataFrom:\n  - extract:\n      key: secret/data/payments/stripe\n",
    )
    neg(
        "vendor_placeholder",
        "env",
        "SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    )
    neg("vendor_placeholder", "env", "LINEAR_API_KEY=lin_api_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
    neg("vendor_placeholder", "env", "EASYPOST_API_KEY=EZAK_your_production_api_key_here")
    neg("vendor_placeholder", "env", "SHIPPO_API_TOKEN=shippo_test_<your-token>")
    neg("vendor_placeholder", "env", "HARNESS_API_KEY=pat.<account-id>.<token-id>.<secret>")
    neg("vendor_placeholder", "env", "FLW_SECRET_KEY=FLWSECK_TEST-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-X")
    neg("vendor_placeholder", "env", "DISCORD_BOT_TOKEN=your-discord-bot-token")
    neg("vendor_placeholder", "json", '{"hubspot_api_key": "00000000-0000-0000-0000-000000000000"}')
    neg("vendor_placeholder", "shell", "oc login --token=sha256~<token> --server=https://api.cluster:6443")
    neg("vendor_placeholder", "env", "SNYK_TOKEN=${SNYK_TOKEN}")
    neg(
        "k8s_template",
        "yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: {{ .Values.db.password }}\n",
    )
    neg(
        "env_refs", "dotenv", "DB_PASSWORD=${DB_PASSWORD}\nREDIS_URL=redis://localhost:6379/0\nAPI_TOKEN=\nDEBUG=true\n"
    )
    neg("lockfile", "yaml", f"  resolution: {{integrity: sha512-{g.b64(64)}}}\n")
    neg(
        "git_log",
        "git",
        f"commit {g.hex(40)}\nAuthor: Dev <dev@acme.io>\n\n    Bump io.jsonwebtoken:jjwt-api from 0.11.5 to 0.12.6",
    )
    neg("docker_image", "shell", f"docker pull ghcr.io/acme/api@sha256:{g.hex(64)}")
    neg("password_prompt", "shell", "mysql -h db.internal -u root -p app_prod")
    neg(
        "password_field_doc",
        "docs",
        "Set `password` in config.toml, or export DB_PASSWORD before running `make migrate`.",
    )
    neg("uuid_request", "log", f"INFO request_id={g.uuid()} status=200 duration_ms=41")
    return out


def main() -> None:
    path = Path(__file__).with_suffix(".jsonl")
    rows = cases(random.Random(12 if len(sys.argv) < 2 else int(sys.argv[1])))
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print(f"{path}: {len(rows)} cases, {sum(not r['negative'] for r in rows)} positives")


if __name__ == "__main__":
    main()
