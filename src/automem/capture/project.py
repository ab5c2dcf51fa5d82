"""Project identity for the hot path: which project a session's cwd belongs to, and its slug.

A project is the git top-level of a session's cwd (else the cwd itself); its slug is a readable name plus a short
hash of the normalized path, so Claude Code, Codex and pi, which spell the same folder differently, all land in one
folder. ``automem.home`` re-exports these; they live here, on ``os.path`` alone, because the hooks that read memory
need a slug and pathlib with what it imports costs them a few milliseconds.
"""

from __future__ import annotations

import errno
import os
import re
import stat

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
        text = text[len("file://") :]
        if re.match(r"^/[A-Za-z]:", text):
            text = text[1:]
    for prefix in ("\\\\?\\", "//?/", "\\\\.\\"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
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
    from automem.digest import sha256_hex

    digest = sha256_hex(norm)[:8]
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
    start = _clean_path(os.path.expanduser(cwd))
    try:
        start = os.path.realpath(start)
        os.stat(start)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return start  # a symlink loop: nothing to walk (a cwd that is not there is walked up all the same)
    folder = start
    while True:
        marker = os.path.join(folder, ".git")
        try:
            mode = _stat_mode(marker)
            if mode is not None and stat.S_ISDIR(mode):
                return folder
            if mode is not None and stat.S_ISREG(mode):
                return _worktree_main(marker) or folder
        except OSError:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return worktree_by_layout(start)  # no .git on this machine (a transcript from another): by layout


_MISSING = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def _stat_mode(path: str) -> int | None:
    """The file mode, None for a path that is not there (as pathlib's is_dir/is_file see it); other errors raise."""
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in _MISSING:
            return None
        raise


def _clean_path(path: str) -> str:
    """A path spelled as pathlib spells it: no empty or ``.`` parts, no trailing slash (``..`` kept)."""
    lead = "//" if path.startswith("//") and not path.startswith("///") else "/" if path.startswith("/") else ""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return lead + "/".join(parts) if parts or lead else "."


_WORKTREE_LAYOUT = re.compile(
    r"^(.+?)/(?:\.claude/worktrees|\.codex/worktrees|\.cursor/worktrees|\.worktrees)/[^/]+(?:/.*)?$", re.I
)


def worktree_by_layout(path: str) -> str:
    """``c:/code/app/.claude/worktrees/fix-login/src`` -> ``c:/code/app``: the main checkout of a worktree laid out
    where agents put them, read from the path alone (for paths of another machine, which cannot be looked at)."""
    match = _WORKTREE_LAYOUT.match(path)
    return match.group(1) if match and match.group(1) not in ("", "/") else path


def _foreign(path: str) -> bool:
    """A Windows spelling (drive letter, UNC share, ``\\\\?\\`` or ``file:///C:``), which POSIX cannot look up."""
    text = path.strip()
    return bool(
        _DRIVE.match(text)
        or text.startswith(("\\\\", "//?/"))
        or re.match(r"file:///?[A-Za-z]:", text)
        or ("\\" in text and "/" not in text)
    )


def _worktree_main(git_file: str) -> str | None:
    """For a linked worktree's ``.git`` file, the main checkout it belongs to."""
    try:
        with open(git_file, encoding="utf-8", errors="replace") as handle:
            first = handle.read().splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = _clean_path(first[len("gitdir:") :].strip())
    if not gitdir.startswith("/"):
        gitdir = os.path.realpath(os.path.join(os.path.dirname(git_file), gitdir))
    # <main>/.git/worktrees/<name>  -> <main>; submodules (<super>/.git/modules/x) stay themselves
    parent = os.path.dirname(gitdir)
    if os.path.basename(parent) == "worktrees" and os.path.basename(os.path.dirname(parent)) == ".git":
        return os.path.dirname(os.path.dirname(parent))
    return None
