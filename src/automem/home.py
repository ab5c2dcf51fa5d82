"""The memory tree's layout and project identity: the one place that knows both.

Every other module asks this one where things go. A project is the git
top-level of a session's cwd (else the cwd itself); its slug is a readable
name plus a short hash of the normalized path, so Claude Code, Codex and pi,
which spell the same folder differently, all land in one folder.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple
from pathlib import Path

from automem.capture import paths
from automem.capture.paths import automem_home, safe_session_id

__all__ = [
    "GLOBAL_PROJECT",
    "Home",
    "automem_home",
    "find_project_root",
    "normalize_path",
    "project_slug",
    "safe_session_id",
]

GLOBAL_PROJECT = "_global"

_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
_MSYS_DRIVE = re.compile(r"^/([A-Za-z])(?:/|$)")
_SLUG_CHARS = re.compile(r"[^a-z0-9]+")


def normalize_path(path: str) -> str:
    """One spelling per folder, whoever reported it.

    Windows paths (``C:\\Users\\x``, ``c:/Users/x``, ``\\\\?\\C:\\Users\\x``,
    ``/c/Users/x`` from Git Bash, ``file:///C:/Users/x``) become
    ``c:/users/x``: drive and case folded, since Windows folders are
    case-insensitive. POSIX paths keep their case and lose only redundant
    separators, ``.`` and ``..`` parts and a trailing slash.
    """
    text = str(path).strip()
    if text.startswith("file://"):
        text = text[len("file://"):]
        if re.match(r"^/[A-Za-z]:", text):
            text = text[1:]
    for prefix in ("\\\\?\\", "//?/", "\\\\.\\"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text.startswith("\\\\"):  # UNC share: \\server\share\dir
        parts = _collapse_dotdot([p for p in text.replace("\\", "/").split("/") if p not in ("", ".")])
        return ("//" + "/".join(parts)).lower()
    drive = _DRIVE.match(text)
    msys = None if drive else _MSYS_DRIVE.match(text)
    if msys and os.name != "nt" and os.path.isdir(text[:2]):
        msys = None  # a real POSIX folder such as /c, not a Git Bash drive
    found = drive or msys
    if found:
        letter = found.group(1).lower()
        parts = [p for p in text[2:].replace("\\", "/").split("/") if p not in ("", ".")]
        parts = _collapse_dotdot(parts)
        return (letter + ":/" + "/".join(parts)).lower()
    if text.startswith("~"):
        text = os.path.expanduser(text)
    absolute = text.startswith("/")
    parts = _collapse_dotdot([p for p in text.split("/") if p not in ("", ".")])
    joined = "/".join(parts)
    return "/" + joined if absolute else joined or "."


def _collapse_dotdot(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return out


def project_slug(path: str) -> str:
    """``<readable-name>-<8 hex>``: stable across harnesses, machines and spellings."""
    norm = normalize_path(path)
    if norm in ("/", "") or re.fullmatch(r"[a-z]:/", norm):
        base = "root"
    else:
        base = norm.rstrip("/").rsplit("/", 1)[-1]
    name = _SLUG_CHARS.sub("-", base.lower()).strip("-")[:40].strip("-") or "project"
    import hashlib  # here, not at the top: loading OpenSSL costs a hook ~2.5 ms when no slug is needed

    digest = hashlib.sha256(norm.encode("utf-8")).hexdigest()[:8]
    return f"{name}-{digest}"


def find_project_root(cwd: str) -> str:
    """The git top-level containing ``cwd`` (a worktree maps to its main repo), else ``cwd``.

    Walks up looking for ``.git`` rather than running git: this is called by
    hooks, and a subprocess would cost more than the whole hook may.
    """
    if not cwd:
        return cwd
    if os.name != "nt" and _foreign(cwd):
        # a Windows path read on POSIX: nothing to walk, nothing to resolve against; a worktree the agents make
        # (<repo>/.claude/worktrees/<name>, <repo>/.worktrees/<name>) still belongs to its repository
        return worktree_by_layout(normalize_path(cwd))
    start = Path(os.path.expanduser(cwd))
    try:
        start = start.resolve()
    except OSError:
        return str(start)
    for folder in (start, *start.parents):
        marker = folder / ".git"
        try:
            if marker.is_dir():
                return str(folder)
            if marker.is_file():
                return str(_worktree_main(marker) or folder)
        except OSError:
            break
    return worktree_by_layout(str(start))  # no .git on this machine (a transcript from another): by layout


_WORKTREE_LAYOUT = re.compile(r"^(.+?)/(?:\.claude/worktrees|\.codex/worktrees|\.cursor/worktrees|\.worktrees)/[^/]+(?:/.*)?$",
                              re.I)


def worktree_by_layout(path: str) -> str:
    """``c:/code/app/.claude/worktrees/fix-login/src`` -> ``c:/code/app``: the main checkout of a worktree laid out
    where agents put them, read from the path alone (for paths of another machine, which cannot be looked at)."""
    match = _WORKTREE_LAYOUT.match(path)
    return match.group(1) if match and match.group(1) not in ("", "/") else path


def _foreign(path: str) -> bool:
    """A Windows spelling (drive letter, UNC share, ``\\\\?\\`` or ``file:///C:``), which POSIX cannot look up."""
    text = path.strip()
    return bool(_DRIVE.match(text) or text.startswith(("\\\\", "//?/")) or re.match(r"file:///?[A-Za-z]:", text)
                or ("\\" in text and "/" not in text))


def _worktree_main(git_file: Path) -> Path | None:
    """For a linked worktree's ``.git`` file, the main checkout it belongs to."""
    try:
        first = git_file.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = Path(first[len("gitdir:"):].strip())
    if not gitdir.is_absolute():
        gitdir = (git_file.parent / gitdir).resolve()
    # <main>/.git/worktrees/<name>  -> <main>; submodules (<super>/.git/modules/x) stay themselves
    if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
        return gitdir.parent.parent.parent
    return None


class Home(namedtuple("Home", "root")):
    """The memory tree rooted at AUTOMEM_HOME (a value: two Homes of one root are equal).

    A named tuple rather than a dataclass: the hooks import this module, and ``dataclasses`` costs them ~8 ms."""

    __slots__ = ()

    @classmethod
    def current(cls) -> "Home":
        return cls(Path(automem_home()))

    # top-level files (spelled in capture/paths.py, which the hooks use on a root string)
    @property
    def config_file(self) -> Path:
        return Path(paths.config_path(str(self.root)))

    @property
    def consent_file(self) -> Path:
        return Path(paths.consent_path(str(self.root)))

    @property
    def index_db(self) -> Path:
        return Path(paths.index_path(str(self.root)))

    @property
    def install_manifest(self) -> Path:
        return self.root / "install.json"

    @property
    def spool_dir(self) -> Path:
        return Path(paths.spool_dir(str(self.root)))

    @property
    def log_file(self) -> Path:
        return Path(paths.log_path(str(self.root)))

    @property
    def projects_dir(self) -> Path:
        return Path(paths.projects_dir(str(self.root)))

    @property
    def state_dir(self) -> Path:
        """automem's own bookkeeping: locks, extraction progress per session, one-line notes for the next Stop."""
        return Path(paths.state_dir(str(self.root)))

    @property
    def extract_state_dir(self) -> Path:
        """The extractor's progress per session, its locks, the session families and the error clusters."""
        return Path(paths.extract_state_dir(str(self.root)))

    @property
    def jobs_state_dir(self) -> Path:
        """Where `automem run` leaves a job's one-turn transcript while the extractor reads it."""
        return self.state_dir / "jobs"

    def spool_file(self, session_id: object) -> Path:
        return Path(paths.spool_path(session_id, str(self.root)))

    def recalled_file(self, session_id: object) -> Path:
        return Path(paths.recalled_path(session_id, str(self.root)))

    def session_note(self, session_id: object) -> Path:
        return Path(paths.session_note_path(str(self.root), session_id))

    def project_note(self, slug: str) -> Path:
        return Path(paths.project_note_path(str(self.root), slug))

    # per project
    def project_dir(self, slug: str) -> Path:
        if not slug or "/" in slug or "\\" in slug or slug in (".", ".."):
            raise ValueError(f"not a project slug: {slug!r}")
        return self.projects_dir / slug

    def project_for_cwd(self, cwd: str) -> "Project":
        """The project a session's folder belongs to; a relative or missing cwd names no folder: ``_global``."""
        if cwd and not (os.path.isabs(cwd) or _foreign(cwd)):
            cwd = ""  # "." in a transcript would resolve against whichever folder automem runs in
        root = find_project_root(cwd) if cwd else ""
        slug = project_slug(root) if root else GLOBAL_PROJECT
        return Project(home=self, slug=slug, root=root)

    def global_project(self) -> "Project":
        return Project(home=self, slug=GLOBAL_PROJECT, root="")

    def projects(self) -> list["Project"]:
        if not self.projects_dir.is_dir():
            return []
        return [Project(home=self, slug=p.name, root="") for p in sorted(self.projects_dir.iterdir()) if p.is_dir()]

    def ensure(self) -> "Home":
        """Create the top of the tree (private to the user: it holds their sessions)."""
        for folder in (self.root, self.spool_dir, self.log_file.parent, self.projects_dir):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self


class Project(namedtuple("Project", "home slug root")):
    """One project's folder of the tree: ``root`` is its checkout ("" when not known, e.g. listed from the tree)."""

    __slots__ = ()

    @property
    def dir(self) -> Path:
        return self.home.project_dir(self.slug)

    @property
    def main_md(self) -> Path:
        return self.dir / "MAIN.md"

    @property
    def memories_dir(self) -> Path:
        return self.dir / "memories"

    @property
    def bank_dir(self) -> Path:
        return self.dir / "bank"

    @property
    def journal_dir(self) -> Path:
        return self.dir / "journal"

    @property
    def summaries_dir(self) -> Path:
        return self.dir / "summaries"

    @property
    def state_dir(self) -> Path:
        return self.dir / "state"

    @property
    def trash_dir(self) -> Path:
        return self.dir / "trash"

    def state_file(self, harness: str, session_id: str) -> Path:
        return self.state_dir / f"{harness}--{safe_session_id(session_id)}.md"


def file_safe_iso(iso: str) -> str:
    """``2026-08-28T10:30:00.000Z`` -> ``2026-08-28T10-30-00-000Z`` (seed 002's file names)."""
    return iso.replace(":", "-").replace(".", "-")


def title_slug(text: str, limit: int = 50) -> str:
    slug = _SLUG_CHARS.sub("-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "entry"
