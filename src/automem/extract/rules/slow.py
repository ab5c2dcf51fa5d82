"""Calls that time out because of what they were pointed at: a folder too big to list in full.

A timeout is usually noise (a slow network, a hung server), so on its own it is never a lesson. It
becomes one when the same kind of call, bounded (a count, ``-First N``, ``head``, a depth limit),
then worked on the same place: the size of the place was the problem, and the bounded form is
the way to look at it.
"""

from __future__ import annotations

import re

from automem import lazy_re as rx  # module-level patterns compile on first use
from automem.extract import phrasing
from automem.extract.rules import Session
from automem.schema import VERIFIED_FIX, Candidate

WINDOW = 30
_LISTERS = frozenset({"ls", "dir", "get-childitem", "gci", "find", "tree", "fd", "du"})
_TIMED_OUT = rx.compile(r"\btimed out\b|\btimeout\b|exit code 124\b", re.I)
_BOUNDED = rx.compile(
    r"select-object\s+-(?:first|last)\s+\d+|\|\s*head\b|-maxdepth\s+\d+|\btree\b.*-L\s*\d+"
    r"|measure-object|\|\s*wc\s+-l|-depth\s+\d+",
    re.I,
)


def _listing(session: Session, index: int):
    return next((c for c in session.intent(index).commands if c.program.lower() in _LISTERS), None)


def _place(session: Session, index: int) -> str:
    """The folder a listing call lists: its own target, else the folder it ran in (slashes folded)."""
    listing = _listing(session, index)
    target = (
        next((a for a in listing.positional if not a.startswith("-") and not a.startswith("|")), "") if listing else ""
    )
    if target in ("", "."):
        target = session.intent(index).cwd or "."
    return target.replace("\\", "/").rstrip("/") or "/"


def _error_text(step) -> str:
    return " ".join(e.get("line", "") for e in step.errors) + " " + (step.result_head or "")


def big_listing_rule(session: Session) -> list[Candidate]:
    """A listing that timed out, then worked bounded on the same place: list this folder with a limit."""
    for index, step in enumerate(session.steps):
        if step.kind != "action" or step.ok or not _TIMED_OUT.search(_error_text(step)):
            continue
        listing = _listing(session, index)
        if listing is None or _BOUNDED.search(step.raw or step.input):
            continue
        for j in range(index + 1, min(len(session.steps), index + WINDOW)):
            later = session.steps[j]
            text = later.raw or later.input
            if later.kind != "action" or not later.ok or _listing(session, j) is None or not _BOUNDED.search(text):
                continue
            here, there = _place(session, index), _place(session, j)
            went = bool(session.intent(index).cwd) and here not in ("/", "~")
            if there.lower() != here.lower() and not (there == "." and went):
                continue  # a bounded listing of another folder says nothing about this one (the folder the failed call
                # went to is the one later calls run in when they name none)
            if re.search(r"select-object\s+-(?:first|last)|\|\s*head\b", text, re.I) is None:
                continue  # a count says how big; the lesson needs the bounded listing that worked
            failed = phrasing.fit(listing.text.strip(), 60)
            bounded = phrasing.fit(
                " ".join(re.sub(r"^(?:powershell(?:\.exe)?|pwsh)\s+-Command\s+", "", text, flags=re.I).split()), 90
            )
            bound = re.search(r"select-object\s+-(?:first|last)\s+\d+|head(?:\s+-n)?\s+\d+|head\b", text, re.I)
            limit = bound.group(0) if bound else "a limit"
            said = next((e.get("line", "") for e in step.errors if _TIMED_OUT.search(e.get("line", ""))), "timed out")
            place = _place(session, index)
            name = re.split(r"[/\\]", place.rstrip("/\\"))[-1] if place not in ("", ".", "~") else ""
            return [
                Candidate(
                    kind="observation",
                    summary=phrasing.fit(
                        f"Listing {name or 'this folder'} in full times out; list it with a limit ({limit})"
                    ),
                    content=f"`{failed}` failed: {' '.join(said.split())[:120]}\nWhat worked: `{bounded}`",
                    why="The full listing ran out of time, and the same listing with a limit worked right after.",
                    how_to_apply="Count the entries first and list a bounded number; never list the whole folder at "
                    "once.",
                    signals=["error"],
                    scope="project",
                    weight=1.9,
                    promotion=VERIFIED_FIX,
                )
            ]
    return []
