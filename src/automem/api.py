"""automem from Python: one object over a memory home.

    from automem import Memory

    memory = Memory()                                   # $AUTOMEM_HOME (or Memory("/path/to/home"))
    memory.remember("Use pnpm, not npm, in this repo.", cwd="/work/shop", type="preference")
    print(memory.brief(cwd="/work/shop"))               # what the next session there is given
    hits = memory.recall("pnpm", cwd="/work/shop")

Every method is the same code the CLI, the MCP server and the hooks run (redaction on every write, the
index kept current, candidates never injected). The home, the project of a folder and the index are
found the way the hooks find them.
"""

from __future__ import annotations

import os
from pathlib import Path

from automem.home import Home, Project


class Memory:
    """The memory tree at ``path`` (default ``$AUTOMEM_HOME``), created on first use."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.home = (Home(Path(path).expanduser()) if path is not None else Home.current()).ensure()

    def __repr__(self) -> str:
        return f"Memory({str(self.home.root)!r})"

    def project(self, cwd: str | None = None) -> Project:
        """The project a folder belongs to (the current folder by default)."""
        return self.home.project_for_cwd(os.path.abspath(cwd or os.getcwd()))

    # ------------------------------------------------------------ memory out

    def recall(
        self,
        query: str,
        *,
        cwd: str | None = None,
        limit: int = 10,
        type: str | None = None,
        since: str | None = None,
        harness: str | None = None,
        all_projects: bool = False,
        candidates: bool = False,
    ) -> list:
        """The best hits for ``query`` in the folder's project, its linked projects and ``_global``
        (``recall.Hit`` objects; ``hit.as_dict()`` for plain data). Candidates only with ``candidates=True``."""
        from automem.recall import parse_since, recall

        return recall(
            query,
            project=self.project(cwd).slug,
            home=self.home,
            all_projects=all_projects,
            type=type,
            since=parse_since(since),
            harness=harness,
            limit=limit,
            candidates=candidates,
        )

    def brief(self, *, cwd: str | None = None, budget: int | None = None) -> str:
        """The fenced brief a new session in the folder's project is given ("" when nothing is remembered)."""
        from automem import brief

        return brief.current(self.home, self.project(cwd).slug, budget).text

    def why(self, memory_id: str) -> dict:
        """Where a memory came from and why it is (or is not) injected."""
        from automem import audit

        return audit.why(self.home, memory_id)

    # ------------------------------------------------------------ memory in

    def remember(
        self,
        text: str,
        *,
        cwd: str | None = None,
        type: str = "observation",
        summary: str | None = None,
        why: str = "",
        how_to_apply: str = "",
        scope: str = "project",
    ):
        """Store a memory the user wrote (redacted, capped, indexed at once); ``scope="global"`` for every
        project. Returns the stored ``store.memories.Memory``."""
        from automem import audit

        project = self.home.global_project() if scope == "global" else self.project(cwd)
        return audit.remember(self.home, project, text, type=type, summary=summary, why=why, how_to_apply=how_to_apply)

    def keep(self, memory_id: str) -> dict:
        """Make an automatic memory the user's own (promoted, never rewritten by automation)."""
        from automem import audit

        return audit.keep(self.home, memory_id)

    def forget(self, memory_id: str, *, purge: bool = False) -> dict:
        """Move a memory to its project's trash/ (or delete it with ``purge``) and out of the index."""
        from automem import audit

        return audit.forget(self.home, memory_id, purge=purge)

    def extract(
        self,
        transcript: str | os.PathLike,
        *,
        harness: str | None = None,
        cwd: str | None = None,
        use_model: bool = False,
    ):
        """Lessons from one transcript (needs consent, as at a session's end); an ``extract.pipeline.Result``."""
        from automem.extract.pipeline import extract

        return extract(self.home, transcript=Path(transcript), harness=harness, cwd=cwd, use_model=use_model)

    def bank(self, *, wait: bool = True):
        """One autobank pass: every finished turn of the enabled harnesses' transcripts as Markdown."""
        from automem.bank.passes import run_pass

        return run_pass(self.home, wait=wait)
