"""The memory tree's layout and project identity: the one place that knows both.

Every other module asks this one where things go. A project is the git
top-level of a session's cwd (else the cwd itself); its slug is a readable
name plus a short hash of the normalized path, so Claude Code, Codex and pi,
which spell the same folder differently, all land in one folder. The identity
functions live in ``automem.capture.project`` (os.path only, for the hooks)
and are re-exported here.
"""

from __future__ import annotations

import os
from collections import namedtuple
from pathlib import Path

from automem.capture import paths
from automem.capture.paths import GLOBAL_PROJECT, automem_home, safe_session_id
from automem.capture.project import (
    _SLUG_CHARS,
    _foreign,
    find_project_root,
    normalize_path,
    project_slug,
    worktree_by_layout,
)

__all__ = [
    "GLOBAL_PROJECT",
    "Home",
    "automem_home",
    "find_project_root",
    "normalize_path",
    "project_slug",
    "safe_session_id",
    "worktree_by_layout",
]


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
    """``2026-08-28T10:30:00.000Z`` -> ``2026-08-28T10-30-00-000Z`` (the bank's and the memories' file names)."""
    return iso.replace(":", "-").replace(".", "-")


def title_slug(text: str, limit: int = 50) -> str:
    slug = _SLUG_CHARS.sub("-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "entry"
