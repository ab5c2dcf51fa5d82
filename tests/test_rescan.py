"""`automem redact --rescan`: secrets older rules let through are scrubbed from everything already stored."""

from __future__ import annotations

import json
import subprocess
import sys

from automem.home import Home
from automem.index.drift import index_drift
from automem.index.sync import reindex
from automem.markdown import INDEX_START

TOKEN = "ghp_" + "Zq8vR2mX4kL9pT1wB6nY3cH7dF5gJ0sA2eQ4"
PASSWORD = "correcthorsebatterystaple"
SECRETS = (TOKEN, PASSWORD)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "automem", *args], capture_output=True, text=True, timeout=120)


def _stored_raw(home: Home) -> dict:
    """A tree as an older automem with weaker rules could have left it (written around the store on purpose)."""
    project = home.project_dir("shop-1a2b3c4d")
    for sub in ("memories", "bank"):
        (project / sub).mkdir(parents=True)
    memory = project / "memories" / f"2026-01-02T03-04-05Z--always-use-db-password-{PASSWORD}.md"
    memory.write_text(
        '---\nid: "m-pw"\ntype: "preference"\nsummary: "Always use DB_PASSWORD=' + PASSWORD + '"\ntags: []\n'
        'scope: "project"\nsource: "auto-memorize"\nstatus: "promoted"\npromoted: "instruction"\n'
        'created: "2026-01-02T03:04:05Z"\nlast_seen: "2026-01-02T03:04:05Z"\nseen: 1\n---\n\n'
        f"The user said: export DB_PASSWORD={PASSWORD} before the tests.\n",
        encoding="utf-8",
    )
    bank = project / "bank" / "2026-01-02T03-04-05-000Z--clone.md"
    bank.write_text(
        '---\nid: "b1"\nts: "2026-01-02T03:04:05.000Z"\ntitle: "clone the repo"\n---\n\n## Prompt\n\n'
        f"clone it\n\n## Actions\n\n- bash: git clone https://{TOKEN}@github.com/o/r.git\n\n"
        "## Result\n\ncloned\n",
        encoding="utf-8",
    )
    main = project / "MAIN.md"
    main.write_text(
        f"# Project Memory\n\nMy own notes.\n\n{INDEX_START}\n- token {TOKEN}\n<!-- automem:index:end -->\n",
        encoding="utf-8",
    )
    spool = home.spool_dir / "s1.jsonl"
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_text(
        json.dumps({"session_id": "s1", "kind": "result", "input": f"curl -H 'Authorization: token {TOKEN}'"}) + "\n",
        encoding="utf-8",
    )
    log = home.log_file
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"2026-01-02 hook: failed on DB_PASSWORD={PASSWORD}\n", encoding="utf-8")
    reindex(str(home.root))
    return {"memory": memory, "bank": bank, "main": main, "spool": spool, "log": log}


def _everything(home: Home) -> bytes:
    return b"".join(p.read_bytes() for p in home.root.rglob("*") if p.is_file())


def test_rescan_scrubs_every_stored_copy_and_renames_a_memory_named_after_a_secret(automem_home):
    home = Home.current().ensure()
    files = _stored_raw(home)
    before = _everything(home)
    assert all(secret.encode() in before for secret in SECRETS)

    dry = cli("redact", "--rescan", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    reported = {json.loads(dry.stdout)["files"][i]["path"] for i in range(len(json.loads(dry.stdout)["files"]))}
    assert {str(files[k]) for k in ("memory", "bank", "main", "spool", "log")} <= reported
    assert _everything(home) == before  # a dry run writes nothing

    done = cli("redact", "--rescan")
    assert done.returncode == 0, done.stderr
    assert "rescan: changed" in done.stdout and "index.db updated" in done.stdout
    after = _everything(home)
    for secret in SECRETS:
        assert secret.encode() not in after  # files, file names' bytes aside, and index.db's pages
    names = [p.name for p in home.root.rglob("*")]
    assert not any(PASSWORD in name for name in names)
    assert not files["memory"].exists() and len(list(files["memory"].parent.glob("*.md"))) == 1
    assert "My own notes." in files["main"].read_text()
    assert json.loads(files["spool"].read_text())["session_id"] == "s1"  # still one JSON object per line
    assert index_drift(home)["ok"] is True

    assert cli("redact", "--rescan").stdout.strip() == "rescan: changed 0 file(s)"  # idempotent


def test_doctor_says_when_the_rules_changed_since_the_last_rescan(automem_home):
    home = Home.current().ensure()
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)}
    assert checks["redaction"]["state"] == "ok" and "no rescan yet" in checks["redaction"]["detail"]
    assert cli("redact", "--rescan").returncode == 0
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)}
    assert checks["redaction"]["state"] == "ok"
    state = home.state_dir / "rescan.json"
    state.write_text(json.dumps({**json.loads(state.read_text()), "rules": "older-rules"}))
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)}
    assert checks["redaction"]["state"] == "warn" and "automem redact --rescan" in checks["redaction"]["fix"]
