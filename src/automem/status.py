"""`automem status` and `automem doctor`: what is wired where, what is stored, and what is broken.

Both read the harness settings through automem.wiring (the same code
install.py writes them with) and the memory tree through automem.home. Only
the standard library is needed for status, so the plugin's slash command can
show it even without the venv; doctor checks the dependencies on top.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from automem import __version__, wiring
from automem.home import Home, find_project_root
from automem.log import tail

CAPTURE_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit")
DEPENDENCIES = ("click", "yaml", "detect_secrets", "httpx")
SPOOL_WARN_BYTES = 256 * 1024 * 1024  # the extractor consumes the spool; this much means it is not
LOG_WARN_BYTES = 20 * 1024 * 1024
TREE_PARTS = ("memories", "bank", "journal")


# ---------------------------------------------------------------- status


def collect_status(home: Home | None = None) -> dict:
    """Everything `automem status` shows, as plain JSON-able data."""
    home = home or Home.current()
    manifest = _read_json(home.install_manifest)
    return {
        "version": __version__,
        "home": {"path": str(home.root), "exists": home.root.is_dir()},
        "install": manifest if isinstance(manifest, dict) else None,
        "wiring": wiring_report(manifest if isinstance(manifest, dict) else None),
        "plugin": plugin_report(),
        "mcp": mcp_report(manifest if isinstance(manifest, dict) else None),
        "consent": consent_report(home),
        "config": config_report(home),
        "spool": spool_report(home),
        "projects": projects_report(home),
        "index": _file_report(home.index_db),
        "log": {**_file_report(home.log_file), "last": tail(5, home)},
    }


def mcp_report(manifest: dict | None) -> list[dict]:
    """Where install.py registered `automem mcp`, and whether the registration is still there."""
    out = []
    for path in sorted(((manifest or {}).get("mcp") or {})):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError:
            out.append({"file": path, "registered": False})
            continue
        if path.endswith(".toml"):
            registered = "[mcp_servers.automem]" in text
        else:
            try:
                registered = "automem" in (json.loads(text).get("mcpServers") or {})
            except (ValueError, AttributeError):
                registered = False
        out.append({"file": path, "registered": registered})
    return out


def _project() -> Path:
    """The project of the current folder (its git top-level), for project-scope settings."""
    try:
        return Path(find_project_root(os.getcwd()))
    except OSError:  # the cwd was deleted under us
        return Path(os.path.expanduser("~"))


def settings_files(manifest: dict | None = None) -> list[tuple[str, Path]]:
    """(harness, file) pairs worth looking at: user and project settings, Codex hooks, and what install touched."""
    project = _project()
    seen: dict[str, str] = {}
    candidates = [
        ("claude-code", wiring.claude_settings_path("user")),
        ("claude-code", wiring.claude_settings_path("project", project)),
        ("claude-code", project / ".claude" / "settings.local.json"),
        ("codex", wiring.codex_hooks_path("user")),
        ("codex", wiring.codex_hooks_path("project", project)),
    ]
    for path, record in ((manifest or {}).get("files") or {}).items():
        candidates.append((str(record.get("harness") or "claude-code"), Path(path)))
    out = []
    for harness, path in candidates:
        key = str(path)
        if key not in seen:
            seen[key] = harness
            out.append((harness, path))
    return out


def wiring_report(manifest: dict | None = None) -> list[dict]:
    """Per settings file: which events run automem, and whether that program is there."""
    out = []
    for harness, path in settings_files(manifest):
        entry: dict = {"harness": harness, "file": str(path), "exists": path.exists(), "error": None, "events": {}}
        try:
            data, _ = wiring.load_settings(path)
        except wiring.SettingsError as exc:
            entry["error"] = str(exc)
            out.append(entry)
            continue
        for event, handlers in wiring.automem_events(data).items():
            entry["events"][event] = [_handler_report(h) for h in handlers]
        specs = wiring.CODEX_EVENTS if harness == "codex" else wiring.CLAUDE_EVENTS
        entry["missing_events"] = [s.event for s in specs if s.event not in entry["events"]] if entry["events"] else []
        out.append(entry)
    return out


def _handler_report(handler: dict) -> dict:
    command = str(handler.get("command", ""))
    target = wiring.command_target(command)
    return {
        "command": command,
        "matcher": handler.get("matcher"),
        "timeout": handler.get("timeout"),
        "async": bool(handler.get("async", False)),
        "target": target,
        "target_ok": bool(target) and os.path.isfile(target) and os.access(target, os.X_OK),
    }


def plugin_report() -> dict:
    """Whether an `automem@<marketplace>` plugin is enabled in the Claude Code settings we can see."""
    project = _project()
    found: dict[str, bool] = {}
    for path in (
        wiring.claude_settings_path("user"),
        wiring.claude_settings_path("project", project),
        project / ".claude" / "settings.local.json",
    ):
        try:
            data, _ = wiring.load_settings(path)
        except wiring.SettingsError:
            continue
        plugins = data.get("enabledPlugins")
        if isinstance(plugins, dict):
            for name, on in plugins.items():
                if str(name).split("@", 1)[0] == "automem":
                    found[str(name)] = bool(on)
    return {"enabled": any(found.values()), "entries": found}


def consent_report(home: Home) -> dict:
    data = _read_json(home.consent_file)
    if not isinstance(data, dict):
        state = "not asked yet" if data is None else "unreadable"
        return {"state": state, "consented": None, "at": None, "path": str(home.consent_file)}
    value = data.get("consented")
    state = {True: "consented", False: "declined", "ask": "ask each time"}.get(value, "unreadable")
    return {"state": state, "consented": value, "at": data.get("at"), "path": str(home.consent_file)}


def config_report(home: Home) -> dict:
    path = home.config_file
    report = {"path": str(path), "exists": path.exists(), "ok": True, "error": None}
    if not path.exists():
        return report
    try:
        from automem.config import load

        load(home)
    except ImportError as exc:  # status without the venv (plugin): cannot parse YAML here
        report["ok"] = None
        report["error"] = f"not checked: {exc}"
    except Exception as exc:  # noqa: BLE001 - ConfigError and anything the parser raises
        report["ok"] = False
        report["error"] = str(exc)
    return report


def spool_report(home: Home) -> dict:
    files = _files(home.spool_dir, "*.jsonl*")
    files = [f for f in files if not f[0].name.endswith(".lock")]
    biggest = max(files, key=lambda f: f[1], default=None)
    return {
        "path": str(home.spool_dir),
        "files": len(files),
        "bytes": sum(size for _, size in files),
        "biggest": {"name": biggest[0].name, "bytes": biggest[1]} if biggest else None,
    }


def projects_report(home: Home) -> list[dict]:
    out = []
    for project in home.projects():
        row: dict = {"slug": project.slug, "bytes": 0}
        for part in TREE_PARTS:
            files = _files(project.dir / part, "*.md")
            row[part] = len(files)
            row["bytes"] += sum(size for _, size in files)
        out.append(row)
    return out


def _files(folder: Path, pattern: str) -> list[tuple[Path, int]]:
    out = []
    try:
        for path in folder.glob(pattern):
            try:
                if path.is_file():
                    out.append((path, path.stat().st_size))
            except OSError:
                continue
    except OSError:
        pass
    return out


def _file_report(path: Path) -> dict:
    try:
        size = path.stat().st_size
        return {"path": str(path), "exists": True, "bytes": size}
    except OSError:
        return {"path": str(path), "exists": False, "bytes": 0}


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "unreadable"


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def format_status(report: dict) -> str:
    """The human-readable form of collect_status()."""
    lines = [
        f"automem {report['version']}  home: {report['home']['path']}"
        + ("" if report["home"]["exists"] else "  (not created yet)")
    ]
    install = report.get("install")
    if install:
        lines.append(f"installed: {install.get('automem')} (scope {install.get('scope')})")
    else:
        lines.append("installed: no install.json (run `python3 install.py`, or use the Claude Code plugin)")
    lines.append("wiring:")
    wired_any = False
    for entry in report["wiring"]:
        if entry["error"]:
            lines.append(f"  {entry['file']}: ERROR {entry['error']}")
            continue
        if not entry["events"]:
            continue
        wired_any = True
        lines.append(f"  {entry['harness']}: {entry['file']}")
        for event, handlers in entry["events"].items():
            for h in handlers:
                mark = "ok" if h["target_ok"] else "MISSING"
                extra = f" matcher={h['matcher']}" if h["matcher"] else ""
                lines.append(f"    {event:<19} {mark:<7} {h['target']}{extra}")
        if entry.get("missing_events"):
            lines.append(f"    not wired: {', '.join(entry['missing_events'])}")
    plugin = report["plugin"]
    if plugin["enabled"]:
        wired_any = True
        lines.append(f"  plugin: enabled ({', '.join(k for k, v in plugin['entries'].items() if v)})")
    for server in report.get("mcp") or []:
        lines.append(f"  mcp server: {server['file']} {'ok' if server['registered'] else 'MISSING'}")
    if not wired_any:
        lines.append("  nothing wired (run `python3 install.py`)")
    consent = report["consent"]
    lines.append(f"consent: {consent['state']}" + (f" (at {consent['at']})" if consent.get("at") else ""))
    cfg = report["config"]
    if not cfg["exists"]:
        lines.append(f"config: {cfg['path']} (not written: defaults)")
    else:
        state = "ok" if cfg["ok"] else ("not checked" if cfg["ok"] is None else "BROKEN")
        lines.append(f"config: {cfg['path']} {state}" + (f": {cfg['error']}" if cfg["error"] else ""))
    spool = report["spool"]
    line = f"spool: {spool['files']} files, {_size(spool['bytes'])}"
    if spool["biggest"]:
        line += f" (biggest {spool['biggest']['name']}, {_size(spool['biggest']['bytes'])})"
    lines.append(line)
    if report["projects"]:
        lines.append("projects:")
        for row in report["projects"]:
            lines.append(
                f"  {row['slug']}: {row['memories']} memories, {row['bank']} bank, {row['journal']} journal, "
                f"{_size(row['bytes'])}"
            )
    else:
        lines.append("projects: none yet")
    index = report["index"]
    lines.append(f"index: {_size(index['bytes'])}" if index["exists"] else "index: not built yet")
    log = report["log"]
    lines.append(f"log: {log['path']} ({_size(log['bytes'])})" if log["exists"] else "log: empty")
    for entry in log["last"]:
        lines.append(f"  {entry[:200]}")
    return "\n".join(lines)


# ---------------------------------------------------------------- doctor


@dataclass
class Check:
    """One doctor check: state is ok | warn | fail; fix says what to do when it is not ok."""

    name: str
    state: str
    detail: str
    fix: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


SAMPLE_FAILURE = {
    "session_id": "automem-doctor-check",
    "transcript_path": "/tmp/automem-doctor-check.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "PostToolUseFailure",
    "tool_name": "Bash",
    "tool_input": {"command": "python -c 'import nothing_here'"},
    "tool_use_id": "toolu_doctor",
    "error": 'Exit code 1\nTraceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
    "ModuleNotFoundError: No module named 'nothing_here'",
}


def run_doctor(home: Home | None = None) -> list[Check]:
    """Every check, in the order a person would fix them."""
    home = home or Home.current()
    manifest = _read_json(home.install_manifest)
    report = wiring_report(manifest if isinstance(manifest, dict) else None)
    checks = [
        check_python(),
        check_home(home),
        check_config(home),
        check_claude_wired(report),
        check_commands_exist(report),
        check_hook_run(report),
        check_dependencies(),
        check_sizes(home),
        check_index(home),
        check_rescan(home),
        check_codex_wired(report),
        check_codex_trust(report),
    ]
    return checks


def check_rescan(home: Home) -> Check:
    """What was stored under older redaction rules was scrubbed by those rules only."""
    from automem.redact.rescan import rules_changed

    changed = rules_changed(home)
    if changed:
        return Check(
            "redaction",
            "warn",
            "the redaction rules changed since the last rescan of the stored tree",
            "run `automem redact --rescan --dry-run` to see what older rules missed, then `automem redact --rescan`",
        )
    if changed is None:
        return Check(
            "redaction",
            "ok",
            "no rescan yet: everything was redacted as it was written "
            "(`automem redact --rescan` applies the current rules to it again)",
        )
    return Check("redaction", "ok", "the stored tree was rescanned with the current rules")


def check_index(home: Home) -> Check:
    """basic-memory's lesson: the Markdown is the truth, so say when index.db has drifted from it."""
    if not home.index_db.exists():
        return Check("index", "ok", "index.db not built yet (it builds itself on first use)")
    try:
        from automem.index.drift import index_drift

        drift = index_drift(home)
    except Exception as exc:  # noqa: BLE001 - a broken index is a finding, not a crash
        return Check("index", "warn", f"index.db unreadable ({type(exc).__name__}: {exc})", "run `automem reindex`")
    detail = f"{drift['indexed']} indexed of {drift['files']} files"
    if drift["ok"]:
        return Check("index", "ok", detail)
    return Check(
        "index",
        "warn",
        f"{detail}; {drift['missing']} missing, {drift['stale']} stale, {drift['orphaned']} orphaned"
        + (f", {drift['ghosts']} search rows of removed text" if drift.get("ghosts") else ""),
        "run `automem reindex` (the index is rebuilt from the Markdown; nothing is lost)",
    )


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info >= (3, 11):
        return Check("python", "ok", f"{version} at {sys.executable}")
    return Check("python", "fail", f"{version} is too old", "install Python 3.11 or newer and run `python3 install.py`")


def check_home(home: Home) -> Check:
    root = home.root
    if not root.is_dir():
        return Check("home", "fail", f"{root} does not exist", "run `python3 install.py` (or set AUTOMEM_HOME)")
    if not os.access(root, os.W_OK | os.X_OK):
        return Check(
            "home", "fail", f"{root} is not writable", f"fix its permissions: chmod u+rwx {shlex.quote(str(root))}"
        )
    return Check("home", "ok", f"{root} is writable")


def check_config(home: Home) -> Check:
    report = config_report(home)
    if not report["exists"]:
        return Check("config", "ok", f"{report['path']} not written; defaults in use")
    if report["ok"] is None:
        return Check("config", "warn", report["error"], "run `python3 install.py` to install the dependencies")
    if not report["ok"]:
        return Check("config", "fail", report["error"], "fix that line, or `automem config reset`")
    return Check("config", "ok", f"{report['path']} parses")


def _claude_entries(report: list[dict]) -> list[dict]:
    return [e for e in report if e["harness"] == "claude-code" and e["events"]]


def check_claude_wired(report: list[dict]) -> Check:
    plugin = plugin_report()
    entries = _claude_entries(report)
    broken = [e for e in report if e["error"] and e["harness"] == "claude-code"]
    if broken:
        return Check("claude-code", "fail", broken[0]["error"], "fix the JSON in that file, then `python3 install.py`")
    if not entries:
        if plugin["enabled"]:
            return Check("claude-code", "ok", "wired through the automem plugin")
        return Check(
            "claude-code", "warn", "no automem hook in any Claude Code settings file", "run `python3 install.py`"
        )
    missing = sorted(
        {ev for e in entries for ev in e.get("missing_events", [])} - {ev for e in entries for ev in e["events"]}
    )
    files = ", ".join(e["file"] for e in entries)
    if missing:
        return Check(
            "claude-code",
            "warn",
            f"wired in {files} but not for {', '.join(missing)}",
            "run `python3 install.py` to wire every event",
        )
    return Check("claude-code", "ok", f"wired in {files}")


def check_commands_exist(report: list[dict]) -> Check:
    targets = {h["target"]: h["target_ok"] for e in report for hs in e["events"].values() for h in hs}
    if not targets:
        return Check("hook command", "warn", "no wired hook command to check", "run `python3 install.py`")
    bad = [t for t, ok in targets.items() if not ok]
    if bad:
        return Check(
            "hook command",
            "fail",
            f"wired command missing or not executable: {', '.join(bad)}",
            "run `python3 install.py` again (it re-creates the venv and re-wires the path)",
        )
    return Check("hook command", "ok", ", ".join(targets))


def check_hook_run(report: list[dict]) -> Check:
    """Feed a sample PostToolUseFailure payload to the wired command, into a throwaway home."""
    command = None
    for entry in _claude_entries(report) + [e for e in report if e["events"]]:
        for h in entry["events"].get("PostToolUseFailure", []) + entry["events"].get("PostToolUse", []):
            if h["target_ok"]:
                command = h["command"].replace(" PostToolUse ", " PostToolUseFailure ")
                if command.endswith(" PostToolUse"):
                    command += "Failure"
                break
        if command:
            break
    label = command
    if command is None:
        argv: list[str] | str = [sys.executable, "-m", "automem", "hook", "PostToolUseFailure"]
        label = f"{sys.executable} -m automem hook PostToolUseFailure (nothing wired; this interpreter's entry)"
    else:
        argv = command
    with tempfile.TemporaryDirectory(prefix="automem-doctor-") as tmp:
        env = {**os.environ, "AUTOMEM_HOME": tmp}
        try:
            out = subprocess.run(
                argv,
                shell=isinstance(argv, str),
                input=json.dumps(SAMPLE_FAILURE).encode(),
                env=env,
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return Check("hook run", "fail", f"{label}: {exc}", "run `python3 install.py`")
        trial = Home(Path(tmp))
        spooled = list(trial.spool_dir.glob("*.jsonl"))
        lines = sum(len(p.read_bytes().splitlines()) for p in spooled)
        log = trial.log_file
        logged = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] if log.exists() else []
    if out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return Check("hook run", "fail", f"{label} exited {out.returncode}: {err[0]}", "run `python3 install.py`")
    if lines == 0:
        why = logged[0] if logged else "no log line either"
        return Check(
            "hook run",
            "fail",
            f"{label} exited 0 but spooled nothing ({why})",
            "check `memory.capture` in config.yml, then `automem status` for log lines",
        )
    return Check("hook run", "ok", f"{label}: exit 0, {lines} spool line(s)")


def check_dependencies() -> Check:
    import importlib.util

    missing = [name for name in DEPENDENCIES if importlib.util.find_spec(name) is None]
    if missing:
        return Check(
            "dependencies",
            "fail",
            f"not importable: {', '.join(missing)}",
            "run `python3 install.py` (or `pip install -e .` in the automem checkout)",
        )
    return Check("dependencies", "ok", ", ".join(DEPENDENCIES))


def check_sizes(home: Home) -> Check:
    spool = spool_report(home)
    log = _file_report(home.log_file)
    problems = []
    if spool["bytes"] > SPOOL_WARN_BYTES:
        problems.append(f"spool is {_size(spool['bytes'])} in {spool['files']} files")
    if log["bytes"] > LOG_WARN_BYTES:
        problems.append(f"log is {_size(log['bytes'])}")
    detail = f"spool {_size(spool['bytes'])} in {spool['files']} files, log {_size(log['bytes'])}"
    if problems:
        return Check(
            "sizes",
            "warn",
            "; ".join(problems),
            f"old spool files in {spool['path']} and the log {log['path']} can be deleted safely",
        )
    return Check("sizes", "ok", detail)


def check_codex_wired(report: list[dict]) -> Check:
    if not wiring.codex_present():
        return Check("codex", "ok", "Codex not found (no ~/.codex, no `codex` on PATH); nothing to wire")
    entries = [e for e in report if e["harness"] == "codex" and e["events"]]
    broken = [e for e in report if e["error"] and e["harness"] == "codex"]
    if broken:
        return Check("codex", "fail", broken[0]["error"], "fix the JSON in that file, then `python3 install.py`")
    if not entries:
        return Check(
            "codex", "warn", "Codex is installed but its hooks.json has no automem hook", "run `python3 install.py`"
        )
    return Check("codex", "ok", "wired in " + ", ".join(e["file"] for e in entries))


def check_codex_trust(report: list[dict]) -> Check:
    """Codex skips untrusted hooks silently (and `codex exec` never asks): say which automem hooks, and how."""
    from automem import codex_trust

    files = [Path(e["file"]) for e in report if e["harness"] == "codex" and e["events"] and not e["error"]]
    if not files:
        return Check("codex trust", "ok", "no automem hooks wired into Codex")
    config = wiring.codex_home() / "config.toml"
    listed = codex_trust.codex_hook_list(cwd=Path.cwd())
    reviewed = [h for f in files for h in codex_trust.review(f, config, listed)]
    pending = [h for h in reviewed if h["status"] in ("untrusted", "modified")]
    if pending:
        changed = [h for h in pending if h["status"] == "modified"]
        detail = f"Codex will skip {len(pending)} of {len(reviewed)} automem hooks: not trusted" + (
            f" ({len(changed)} changed since they were trusted)" if changed else ""
        )
        return Check("codex trust", "warn", detail, codex_trust.how_to_trust(pending, config))
    if any(h["status"] == "unverified" for h in reviewed):
        return Check(
            "codex trust",
            "ok",
            f"{len(reviewed)} automem hooks have a trusted_hash in {config} "
            "(`codex` is not on PATH, so whether it still matches was not checked)",
        )
    return Check("codex trust", "ok", f"Codex trusts all {len(reviewed)} automem hooks")
