#!/usr/bin/env python3
"""Set automem up: venv, package, hooks wired into Claude Code (and Codex), then show it working.

    python3 install.py [--no-venv] [--scope user|project] [--dry-run] [--uninstall] [--yes]

Standard library only: it runs before anything is installed. The settings
editing lives in src/automem/wiring.py (also stdlib only), imported by path,
so `automem status` and `automem doctor` read the settings the same way.

Safety: every settings file is parsed before anything is changed (a file that
is not valid JSON stops the run with exit 2 and stays untouched); a file is
backed up to `<file>.automem-backup-<UTC stamp>` before each change we make to
it (stamped, never overwritten, so the pre-automem original survives any
number of re-runs); a run that changes nothing writes nothing. What was done
is recorded in $AUTOMEM_HOME/install.json, which `--uninstall` and
`automem status` read.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if sys.version_info < (3, 11):
    sys.exit(f"automem needs Python >= 3.11; this is {sys.version.split()[0]} ({sys.executable})")

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO / "src"))

from automem import wiring  # noqa: E402  (stdlib only, imported from src/ by path)
from automem.capture.paths import automem_home  # noqa: E402

PLUGIN_CLI = '"${CLAUDE_PLUGIN_ROOT}/hooks/automem-hook" --cli'
PLUGIN_SCRIPT = "${CLAUDE_PLUGIN_ROOT}/hooks/automem-hook"
MANIFEST_NAME = "install.json"


class InstallError(RuntimeError):
    """A step failed; the message says what to do."""


# ---------------------------------------------------------------- small helpers


def say(message: str = "") -> None:
    print(message, flush=True)


def utc_stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def utc_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def project_version() -> str:
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def manifest_path() -> Path:
    return Path(automem_home()) / MANIFEST_NAME


def load_manifest() -> dict:
    try:
        data = json.loads(manifest_path().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_if_changed(path: Path, text: str | bytes) -> bool:
    """Atomic (temp file + rename), keeping the file's mode; a file that already holds these bytes is not touched."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    if path.exists():
        shutil.copymode(path, tmp)
    os.replace(tmp, path)
    return True


def backup(path: Path) -> Path:
    """Copy ``path`` to a stamped sibling that no earlier backup occupies."""
    stamp = utc_stamp()
    target = path.with_name(f"{path.name}.automem-backup-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.automem-backup-{stamp}-{n}")
        n += 1
    shutil.copy2(path, target)
    return target


def show_diff(path: Path, old: str | None, new: str | None) -> None:
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    label_old = str(path) if old is not None else "/dev/null"
    label_new = str(path) if new is not None else "/dev/null"
    diff = "".join(difflib.unified_diff(old_lines, new_lines, label_old, label_new))
    say(diff if diff.endswith("\n") else diff + "\n")


def missing_parents(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, outermost first."""
    out = []
    for parent in path.parents:
        if parent.exists():
            break
        out.append(parent)
    return list(reversed(out))


# ---------------------------------------------------------------- python environment


def scripts_dir(python: Path) -> Path:
    return python.parent


def automem_script(python: Path) -> Path:
    """Where pip puts the `automem` console script for this interpreter."""
    name = "automem.exe" if os.name == "nt" else "automem"
    here = scripts_dir(python) / name
    if here.exists() or python.parent.name in ("bin", "Scripts"):
        return here
    found = shutil.which("automem")
    return Path(found) if found else here


def probe_installed(python: Path) -> dict | None:
    """Version and location of the automem this interpreter imports, or None."""
    code = (
        "import importlib.metadata as m, importlib.util as u, json, automem;"
        "print(json.dumps({'version': m.version('automem'), 'file': automem.__file__,"
        " 'pytest': u.find_spec('pytest') is not None}))"
    )
    with tempfile.TemporaryDirectory() as neutral:
        out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=neutral, timeout=60)
    if out.returncode != 0:
        return None
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def up_to_date(python: Path) -> bool:
    info = probe_installed(python)
    if not info:
        return False
    here = Path(info["file"]).resolve().is_relative_to((REPO / "src").resolve())
    return info["version"] == project_version() and here and info["pytest"] and automem_script(python).exists()


def ensure_python(args: argparse.Namespace, manifest: dict) -> tuple[Path, dict | None]:
    """The interpreter to install into (and the venv record), creating the venv if needed."""
    if args.no_venv:
        return Path(sys.executable), None
    venv_dir = REPO / ".venv"
    python = venv_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    old = manifest.get("venv") if isinstance(manifest.get("venv"), dict) else {}
    created = bool(old.get("created")) if old.get("path") == str(venv_dir) else False
    if not python.exists():
        say(f"creating a virtual environment at {venv_dir}")
        subprocess.run([sys.executable, "-m", "venv", str(venv_dir)], check=True)
        created = True
    return python, {"path": str(venv_dir), "created": created}


def ensure_package(python: Path, skip_pip: bool) -> Path:
    """pip-install the package (editable, with test extras) unless that exact version is already there."""
    if skip_pip:
        say("--skip-pip: not running pip; using the automem this interpreter already has")
    elif up_to_date(python):
        say(f"automem {project_version()} is already installed for {python}; pip not needed")
    else:
        say(f"installing automem into {python} (pip install -e '{REPO}[test]')")
        out = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-e", f"{REPO}[test]"])
        if out.returncode != 0:
            raise InstallError(
                "pip install failed (see above). Without --no-venv install.py makes its own venv; "
                "with --no-venv the running interpreter must accept pip installs."
            )
    script = automem_script(python)
    if not script.exists():
        raise InstallError(f"the automem console script is missing at {script}; run without --skip-pip")
    return script


# ---------------------------------------------------------------- what goes where


def targets(scope: str) -> list[tuple[str, Path]]:
    """(harness, settings file) pairs to wire for this scope."""
    project = wiring.git_toplevel() if scope == "project" else None
    out = [("claude-code", wiring.claude_settings_path(scope, project))]
    if wiring.codex_present():
        out.append(("codex", wiring.codex_hooks_path(scope, project)))
    return out


def commands_dir(scope: str) -> Path:
    if scope == "project":
        return wiring.git_toplevel() / ".claude" / "commands"
    return wiring.claude_config_dir() / "commands"


def render_command(text: str, automem: Path) -> str:
    """A plugin slash command made into a user command: the plugin's CLI call becomes the installed script."""
    quoted = '"' + str(automem) + '"'
    return text.replace(PLUGIN_CLI, quoted).replace(PLUGIN_SCRIPT, str(automem))


def plan_settings(harness: str, path: Path, automem: Path, uninstall: bool) -> dict:
    data, text = wiring.load_settings(path)
    if uninstall:
        new_data = wiring.remove_hooks(data)
    else:
        specs = wiring.CODEX_EVENTS if harness == "codex" else wiring.CLAUDE_EVENTS
        new_data = wiring.add_hooks(data, specs, str(automem), None if harness == "claude-code" else harness)
    style = wiring.detect_style(text) if text and text.strip() else wiring.JsonStyle()
    new_text = text if new_data == data and text is not None else wiring.dump_settings(new_data, style)
    if new_data == data and text is None:
        new_text = None  # nothing to add and nothing there: leave it absent
    return {"harness": harness, "path": path, "data": data, "text": text, "new_data": new_data, "new_text": new_text}


# ---------------------------------------------------------------- MCP server registration (`automem mcp`)

MCP_NAME = "automem"
TOML_START = "# >>> automem mcp server (written by automem's install.py; --uninstall removes this block) >>>"
TOML_END = "# <<< automem mcp server <<<"


def mcp_targets(scope: str) -> list[tuple[str, Path]]:
    """(harness, file) where the MCP server is registered: Claude Code always, Codex when present."""
    if scope == "project":
        top = wiring.git_toplevel()
        out = [("claude-code", top / ".mcp.json")]
        codex = top / ".codex" / "config.toml"
    else:  # user scope: the top-level "mcpServers" of ~/.claude.json (inside CLAUDE_CONFIG_DIR when set)
        env = os.environ.get("CLAUDE_CONFIG_DIR")
        out = [("claude-code", (Path(os.path.expanduser(env)) if env else Path.home()) / ".claude.json")]
        codex = wiring.codex_home() / "config.toml"
    if wiring.codex_present():
        out.append(("codex", codex))
    return out


def _is_our_server(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    name = entry["command"].replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in ("automem", "automem.exe") and entry.get("args") == ["mcp"]


def _mcp_json_plan(path: Path, automem: Path, uninstall: bool) -> dict:
    data, text = wiring.load_settings(path)
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise wiring.SettingsError(f'{path}: "mcpServers" is a {type(servers).__name__}, expected an object')
    new = json.loads(json.dumps(data))
    current = (servers or {}).get(MCP_NAME)
    note = ""
    if uninstall:
        if _is_our_server(current):
            del new["mcpServers"][MCP_NAME]
            if not new["mcpServers"]:
                del new["mcpServers"]
    elif current is not None and not _is_our_server(current):
        note = f'{path}: an "{MCP_NAME}" MCP server that is not automem\'s is there; left alone'
    else:
        entry = {"type": "stdio", "command": str(automem), "args": ["mcp"]}
        if current != entry:
            if new.get("mcpServers") is None:  # absent, or `"mcpServers": null`
                new["mcpServers"] = {}
            new["mcpServers"][MCP_NAME] = {**(current or {}), **entry}
    style = wiring.detect_style(text) if text and text.strip() else wiring.JsonStyle()
    new_text = text if new == data else wiring.dump_settings(new, style)
    return {
        "path": path,
        "kind": "json",
        "text": text,
        "new_text": new_text,
        "data": data,
        "new_data": new,
        "note": note,
    }


def _toml_block(automem: Path) -> str:
    return f'{TOML_START}\n[mcp_servers.{MCP_NAME}]\ncommand = {json.dumps(str(automem))}\nargs = ["mcp"]\n{TOML_END}\n'


def _toml_plan(path: Path, automem: Path, uninstall: bool) -> dict:
    """Codex's config.toml: automem's table is one delimited block, appended or cut out as text."""
    import tomllib

    try:
        text: str | None = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise wiring.SettingsError(f"{path}: cannot read as UTF-8 text ({exc})") from None
    try:
        parsed = tomllib.loads(text or "")
    except tomllib.TOMLDecodeError as exc:
        raise wiring.SettingsError(f"{path}: not valid TOML ({exc}); automem left it untouched") from None
    base, note = text or "", ""
    start = base.find(TOML_START)
    if start >= 0:  # cut our block out, with the one newline install put before it
        end = base.find(TOML_END, start)
        end = len(base) if end < 0 else base.find("\n", end) + 1 or len(base)
        base = base[: start - 1 if start > 0 else 0] + base[end:]
    if uninstall:
        new_text = base
    elif start < 0 and MCP_NAME in (parsed.get("mcp_servers") or {}):
        note, new_text = f"{path}: an [mcp_servers.{MCP_NAME}] table that is not automem's is there; left alone", text
    else:
        new_text = base + ("\n" if base else "") + _toml_block(automem)
    if new_text is not None and new_text != text:
        tomllib.loads(new_text)  # never write a file Codex cannot read
    if text is None and not new_text:
        new_text = None
    return {"path": path, "kind": "toml", "text": text, "new_text": new_text, "note": note}


def mcp_plans(scope: str, automem: Path, uninstall: bool, manifest: dict | None = None) -> list[dict]:
    wanted = {str(p): h for h, p in mcp_targets(scope)}
    for path, record in ((manifest or {}).get("mcp") or {}).items():
        wanted.setdefault(path, record.get("harness", "claude-code"))
    plans = []
    for path, harness in wanted.items():
        plan = (_toml_plan if path.endswith(".toml") else _mcp_json_plan)(Path(path), automem, uninstall)
        plans.append({**plan, "harness": harness})
    return plans


def apply_mcp_install(plans: list[dict], manifest: dict, created_dirs: list[str]) -> dict:
    """Write the registrations; returns the manifest's "mcp" record (backups, whether install created the file)."""
    records = dict(manifest.get("mcp") or {})
    for plan in plans:
        if plan["note"]:
            say(plan["note"])
            records.setdefault(str(plan["path"]), {"harness": plan["harness"], "created": False, "backups": []})
            continue
        apply_file_plan(
            plan,
            records,
            created_dirs,
            "registered the automem MCP server in {path}",
            "{path}: MCP server already registered, unchanged",
        )
    return records


def apply_file_plan(plan: dict, records: dict, created_dirs: list[str], changed: str, unchanged: str) -> None:
    """Write one planned file change, recording in ``records`` whether install created it and where its backups are."""
    path: Path = plan["path"]
    record = dict(records.get(str(path)) or {"harness": plan["harness"], "created": False, "backups": []})
    if plan["new_text"] is not None and plan["new_text"] != plan["text"]:
        if plan["text"] is None:
            record["created"] = True
            created_dirs += [str(d) for d in missing_parents(path) if str(d) not in created_dirs]
        else:
            record["backups"] = list(record.get("backups") or []) + [str(backup(path))]
        write_if_changed(path, plan["new_text"])
        say(changed.format(path=path))
    else:
        say(unchanged.format(path=path))
    records[str(path)] = record


def apply_mcp_uninstall(plans: list[dict], manifest: dict) -> None:
    records = manifest.get("mcp") or {}
    for plan in plans:
        path: Path = plan["path"]
        if plan["new_text"] == plan["text"]:
            continue
        record = records.get(str(path)) or {}
        empty = not plan["new_data"] if plan["kind"] == "json" else not (plan["new_text"] or "").strip()
        if record.get("created") and empty:
            path.unlink()
            say(f"removed {path} (install created it)")
            continue
        restored = restore_bytes(plan["new_data"], record.get("backups") or []) if plan["kind"] == "json" else None
        if restored is not None:
            write_if_changed(path, restored)
        else:
            write_if_changed(path, plan["new_text"] or "")
        say(f"removed the automem MCP server from {path}")


# ---------------------------------------------------------------- install


def install(args: argparse.Namespace) -> int:
    manifest = load_manifest()
    # 1. read every settings file first: a broken one stops us before anything changes
    predicted_python = Path(sys.executable) if args.no_venv else REPO / ".venv" / "bin" / "python"
    predicted = automem_script(predicted_python)
    plans = [plan_settings(h, p, predicted, False) for h, p in targets(args.scope)]
    server_plans = mcp_plans(args.scope, predicted, False)
    if args.dry_run:
        return dry_run(plans + server_plans, command_plans(args.scope, predicted, manifest), predicted)
    if not args.yes and sys.stdin.isatty():
        where = ", ".join(str(p["path"]) for p in plans)
        if input(f"Install automem and wire its hooks into {where}? [Y/n] ").strip().lower() in ("n", "no"):
            say("nothing changed")
            return 0
    # 2. the package
    python, venv = ensure_python(args, manifest)
    automem = ensure_package(python, args.skip_pip)
    if automem != predicted:
        plans = [plan_settings(h, p, automem, False) for h, p in targets(args.scope)]
        server_plans = mcp_plans(args.scope, automem, False)
    # 3. the settings files
    files = dict(manifest.get("files") or {})
    created_dirs = list(manifest.get("created_dirs") or [])
    for plan in plans:
        apply_file_plan(
            plan, files, created_dirs, "wired automem hooks into {path}", "{path}: already wired, unchanged"
        )
    # 3b. the MCP server (`automem mcp`) registered with each harness
    servers = apply_mcp_install(server_plans, manifest, created_dirs)
    # 4. slash commands
    commands = dict(manifest.get("commands") or {})
    for plan in command_plans(args.scope, automem, manifest):
        dest: Path = plan["path"]
        if plan["action"] == "skip":
            say(f"{dest}: exists and is not automem's; left alone")
            continue
        if plan["action"] in ("create", "update"):
            if plan["action"] == "create":
                created_dirs += [str(d) for d in missing_parents(dest) if str(d) not in created_dirs]
            write_if_changed(dest, plan["text"])
            say(f"slash command /{dest.stem}: {dest}")
        commands[str(dest)] = {"sha256": hashlib.sha256(plan["text"].encode("utf-8")).hexdigest()}
    # 5. the record
    record = {
        "version": project_version(),
        "repo": str(REPO),
        "scope": args.scope,
        "python": str(python),
        "automem": str(automem),
        "venv": venv,
        "files": files,
        "mcp": servers,
        "commands": commands,
        "created_dirs": created_dirs,
        "first_installed": manifest.get("first_installed") or utc_iso(),
    }
    Path(automem_home()).mkdir(parents=True, exist_ok=True, mode=0o700)
    write_if_changed(manifest_path(), json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    say(f"recorded in {manifest_path()}")
    say("Claude Code picks up settings changes by itself.")
    codex_files = [p["path"] for p in plans if p.get("harness") == "codex"]
    if codex_files:
        say(codex_trust_note(codex_files))
    if not args.no_demo:
        show_it_working(automem)
    return 0


def codex_trust_note(hooks_files: list[Path]) -> str:
    """Codex runs a new hook only after the user trusts it; `codex exec` never asks, so say it now."""
    from automem import codex_trust

    config = wiring.codex_home() / "config.toml"
    reviewed = [h for f in hooks_files for h in codex_trust.review(Path(f), config)]
    pending = [h for h in reviewed if h["status"] == "untrusted"]
    if not pending:
        return "Codex: the automem hooks were trusted before (`automem doctor` checks they still are)."
    return (
        "Codex: the automem hooks do not run until you trust them. Start the Codex TUI (`codex`), type /hooks "
        f'and trust the {len(pending)} automem hooks; the review writes `[hooks.state."<key>"] trusted_hash` '
        f"into {config}. `codex exec` never asks. `automem doctor` checks it and prints the lines to add."
    )


def command_plans(scope: str, automem: Path, manifest: dict) -> list[dict]:
    """What to do with each commands/*.md as a user (or project) slash command."""
    known = manifest.get("commands") or {}
    plans = []
    for source in sorted((REPO / "commands").glob("*.md")):
        dest = commands_dir(scope) / source.name
        text = render_command(source.read_text(encoding="utf-8"), automem)
        try:
            current = dest.read_text(encoding="utf-8")
        except FileNotFoundError:
            plans.append({"path": dest, "text": text, "old": None, "action": "create"})
            continue
        if current == text:
            action = "same" if str(dest) in known else "skip"
        else:
            ours = str(dest) in known and known[str(dest)].get("sha256") == hashlib.sha256(current.encode()).hexdigest()
            action = "update" if ours else "skip"
        plans.append({"path": dest, "text": text, "old": current, "action": action})
    return plans


def dry_run(plans: list[dict], cmd_plans: list[dict], automem: Path) -> int:
    say(f"dry run: nothing is written. Hook command: {shlex.quote(str(automem))} hook <Event>")
    changed = False
    for plan in plans:
        if plan["new_text"] is not None and plan["new_text"] != plan["text"]:
            changed = True
            show_diff(plan["path"], plan["text"], plan["new_text"])
        else:
            say(f"{plan['path']}: no change")
    for plan in cmd_plans:
        if plan["action"] in ("create", "update"):
            changed = True
            show_diff(plan["path"], plan["old"], plan["text"])
    if not changed:
        say("nothing would change")
    return 0


# ---------------------------------------------------------------- uninstall


def uninstall(args: argparse.Namespace) -> int:
    manifest = load_manifest()
    files = manifest.get("files") or {}
    wanted = {str(p): h for h, p in targets(args.scope)}
    for path, record in files.items():
        wanted.setdefault(path, record.get("harness", "claude-code"))
    plans = [plan_settings(h, Path(p), Path("automem"), True) for p, h in wanted.items()]
    server_plans = mcp_plans(args.scope, Path("automem"), True, manifest)
    if args.dry_run:
        say("dry run: nothing is removed.")
        for plan in server_plans:
            if plan["new_text"] != plan["text"]:
                created = (manifest.get("mcp") or {}).get(str(plan["path"]), {}).get("created")
                gone = created and (
                    not plan["new_data"] if plan["kind"] == "json" else not (plan["new_text"] or "").strip()
                )
                show_diff(plan["path"], plan["text"], None if gone else plan["new_text"])
        for plan in plans:
            if plan["new_data"] != plan["data"]:
                record = files.get(str(plan["path"])) or {}
                final = None if record.get("created") and not plan["new_data"] else plan["new_text"]
                show_diff(plan["path"], plan["text"], final)
            else:
                say(f"{plan['path']}: nothing of automem's")
        return 0
    if not args.yes and sys.stdin.isatty():
        if input("Remove automem's hooks, commands and venv (your memories stay)? [y/N] ").strip().lower() not in (
            "y",
            "yes",
        ):
            say("nothing changed")
            return 0
    for plan in plans:
        path: Path = plan["path"]
        if plan["new_data"] == plan["data"]:
            continue
        record = files.get(str(path)) or {}
        if record.get("created") and not plan["new_data"]:
            path.unlink()
            say(f"removed {path} (install created it)")
            continue
        restored = restore_bytes(plan["new_data"], record.get("backups") or [])
        if restored is not None:
            write_if_changed(path, restored)
        else:
            backup(path)
            write_if_changed(path, plan["new_text"])
        say(f"removed automem hooks from {path}")
    apply_mcp_uninstall(server_plans, manifest)
    for dest, info in (manifest.get("commands") or {}).items():
        dest_path = Path(dest)
        try:
            current = dest_path.read_bytes()
        except FileNotFoundError:
            continue
        if hashlib.sha256(current).hexdigest() == info.get("sha256"):
            dest_path.unlink()
            say(f"removed slash command {dest}")
        else:
            say(f"{dest} was edited after install; left in place")
    for folder in reversed(manifest.get("created_dirs") or []):
        try:
            Path(folder).rmdir()  # only when empty
        except OSError:
            pass
    venv = manifest.get("venv")
    if isinstance(venv, dict) and venv.get("created") and Path(venv.get("path", "")).is_dir():
        shutil.rmtree(venv["path"])
        say(f"removed the venv {venv['path']}")
    try:
        manifest_path().unlink()
    except FileNotFoundError:
        pass
    home = automem_home()
    say(f"automem is uninstalled. Your memory data is still in {home}; delete it with: rm -rf {shlex.quote(home)}")
    return 0


def restore_bytes(data: dict, backups: list[str]) -> bytes | None:
    """The exact bytes of the newest backup whose content equals ``data`` (keeps odd formatting)."""
    for name in reversed(backups):
        try:
            raw = Path(name).read_bytes()
            parsed = json.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
        except (OSError, ValueError):
            continue
        if parsed == data:
            return raw
    return None


# ---------------------------------------------------------------- the last step


def show_it_working(automem: Path) -> None:
    """`automem demo`: a bundled sample session through the real hooks into a throwaway home, then `automem status`."""
    say("\n== automem demo: a sample session through the real hooks, into a throwaway memory home ==")
    subprocess.run([str(automem), "demo"], timeout=300)
    say("\n== automem status ==")
    subprocess.run([str(automem), "status"], timeout=60)


# ---------------------------------------------------------------- entry


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="install.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-venv", action="store_true", help="install into the running interpreter, no venv")
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: ~/.claude/settings.json; project: <git top-level>/.claude/settings.json",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the changes as a diff, write nothing")
    parser.add_argument("--uninstall", action="store_true", help="remove what install added (memories stay)")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--skip-pip",
        action="store_true",
        help="do not run pip (the interpreter must already have automem; used by the tests)",
    )
    parser.add_argument("--no-demo", action="store_true", help="skip the final demonstration")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return uninstall(args) if args.uninstall else install(args)
    except wiring.SettingsError as exc:
        print(f"install.py: {exc}", file=sys.stderr)
        return 2
    except (InstallError, subprocess.CalledProcessError) as exc:
        print(f"install.py: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
