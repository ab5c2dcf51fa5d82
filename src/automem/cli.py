"""The ``automem`` command line: a thin click layer over the Python API.

Each command parses its options, calls one function of the package and prints
the result (``--json`` where it lists or shows things). Errors the user can
fix come out as one clear line and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import sys

import click

from automem import __version__
from automem.schema import SEARCH_TYPES, TYPES


def _fail(message: str) -> None:
    raise click.ClickException(message)


def _echo_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


class _Group(click.Group):
    """Turns the package's own user-facing errors into clean CLI errors."""

    def invoke(self, ctx: click.Context):
        from automem.config import ConfigError

        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None


# Commands that must work with a broken config.yml: the hook (defaults plus a log line), the ones that show or
# repair the config, status and doctor (they report it), and the demo and redact (they never read it).
_WITHOUT_CONFIG = {"hook", "config", "status", "doctor", "demo", "redact"}


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="automem")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """automem: memory for coding agents, kept as Markdown on your own disk.

    Hooks capture what happens in Claude Code, Codex and pi sessions; lessons
    and finished turns land under AUTOMEM_HOME (default ~/.automem).
    """
    if ctx.invoked_subcommand and ctx.invoked_subcommand not in _WITHOUT_CONFIG:
        from automem.config import load

        load()  # a broken config.yml stops here with the file, the line and the fix, not halfway through


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("event")
@click.option("--harness", default="claude-code", show_default=True, help="Which harness sent the payload.")
def hook(event: str, harness: str) -> None:
    """Handle one hook EVENT with its JSON payload on stdin (what the harness runs).

    Always exits 0 and prints nothing or a single JSON object; problems go to
    log/automem.log.
    """
    from automem.capture.hook import main as hook_main

    hook_main([event, "--harness", harness])


# ---------------------------------------------------------------- config


@cli.group()
def config() -> None:
    """Show or reset config.yml (edits take effect at once, no restart)."""


@config.command("show")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def config_show(as_json: bool) -> None:
    """The effective configuration (defaults overlaid with config.yml)."""
    from automem.config import load

    cfg = load()
    data = {**cfg.data, "effective_model": cfg.model, "path": str(cfg.path)}
    if as_json:
        _echo_json(data)
        return
    import yaml

    click.echo(f"# {cfg.path}{'' if cfg.path.exists() else ' (not written yet: defaults)'}")
    click.echo(yaml.safe_dump(cfg.data, sort_keys=False).rstrip())
    click.echo(f"# effective model: {cfg.model}")


@config.command("path")
def config_path() -> None:
    """Where config.yml lives."""
    from automem.home import Home

    click.echo(str(Home.current().config_file))


@config.command("reset")
@click.option("--yes", is_flag=True, help="Overwrite an existing config.yml without asking.")
def config_reset(yes: bool) -> None:
    """Write the commented default config.yml."""
    from automem.config import write_default
    from automem.home import Home

    path = Home.current().config_file
    if path.exists() and not yes:
        click.confirm(f"Overwrite {path} with the defaults?", abort=True)
    write_default(overwrite=True)
    click.echo(f"wrote {path}")


# ---------------------------------------------------------------- status / doctor


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(as_json: bool) -> None:
    """What is wired where, consent, spool sizes and the last errors."""
    from automem.status import collect_status, format_status

    report = collect_status()
    if as_json:
        _echo_json(report)
    else:
        click.echo(format_status(report))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def doctor(as_json: bool) -> None:
    """Check the installation; each failed check says what to do."""
    from automem.status import run_doctor

    checks = run_doctor()
    if as_json:
        _echo_json([c.as_dict() for c in checks])
    else:
        for check in checks:
            mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[check.state]
            click.echo(f"[{mark}] {check.name}: {check.detail}")
            if check.state != "ok" and check.fix:
                click.echo(f"       fix: {check.fix}")
    if any(c.state == "fail" for c in checks):
        sys.exit(1)


# ---------------------------------------------------------------- bank


@cli.group()
def bank() -> None:
    """Bank every finished turn of every harness as Markdown (autobank)."""


@bank.command("run")
@click.option("--harness", "harnesses", multiple=True, help="Only this harness (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def bank_run(harnesses: tuple[str, ...], as_json: bool) -> None:
    """One autobank pass (waits for a running pass to finish first)."""
    from automem.bank.passes import run_pass

    report = _with_progress(
        "bank run", not as_json, lambda **kw: run_pass(harnesses=harnesses or None, wait=True, **kw)
    )
    if as_json:
        _echo_json(report.as_dict())
        return
    if report.skipped:
        click.echo(f"skipped: {report.skipped}")
        return
    click.echo(
        f"banked {report.banked} turn(s), rewrote {report.rewritten}, read {report.files_read} of "
        f"{report.files_seen} transcript(s) ({report.bytes_read / 1e6:.1f} MB)"
        + (" — more to read, run again or use `automem bank watch`" if report.backlog else "")
        + (" — interrupted, run again to go on" if report.interrupted else "")
    )
    for error in report.errors:
        click.echo(f"  error: {error}", err=True)
    if report.interrupted:
        sys.exit(130)


def _with_progress(label: str, show: bool, work):
    """Run ``work(progress=..., stop=...)``: a bar on a terminal's stderr (plain lines into a pipe or file), and
    Ctrl-C ending it cleanly between two turns (a second Ctrl-C aborts at once)."""
    import signal
    import threading

    from automem.progressbar import ProgressBar

    bar = ProgressBar(sys.stderr, label) if show else None
    asked = threading.Event()

    def on_interrupt(_signum, _frame) -> None:
        if asked.is_set():
            raise KeyboardInterrupt
        asked.set()

    try:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread (an in-process caller): Ctrl-C keeps its default
        previous = None
    try:
        return work(progress=bar.update if bar else None, stop=asked.is_set)
    finally:
        if bar:
            bar.close()
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


@bank.command("watch")
@click.option("--interval", default=30.0, show_default=True, help="Seconds between passes.")
@click.option("--once", is_flag=True, hidden=True)
def bank_watch(interval: float, once: bool) -> None:
    """The service loop: a pass at start, every INTERVAL seconds, every 2 s while a backfill drains."""
    from automem.bank.service import watch

    watch(interval=interval, once=once, echo=click.echo)


@bank.command("enable")
@click.argument("harness")
def bank_enable(harness: str) -> None:
    """Turn autobank on for HARNESS (its first pass banks the last 30 days)."""
    _set_harness(harness, True)


@bank.command("disable")
@click.argument("harness")
def bank_disable(harness: str) -> None:
    """Turn autobank off for HARNESS (what is banked stays)."""
    _set_harness(harness, False)


def _set_harness(harness: str, on: bool) -> None:
    from automem.config import HARNESSES, load, set_value

    if harness not in HARNESSES:
        _fail(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    current = load().autobank_harnesses
    wanted = [h for h in HARNESSES if (h in current or h == harness) and not (h == harness and not on)]
    path = set_value("autobank.harnesses", wanted)
    click.echo(f"autobank {'enabled' if on else 'disabled'} for {harness} ({path})")


@bank.command("backfill")
@click.option(
    "--days", type=click.IntRange(1, 3650), required=True, help="Bank turns that finished in the last N days."
)
@click.option("--harness", "harnesses", multiple=True, help="Only this harness (repeatable).")
def bank_backfill(days: int, harnesses: tuple[str, ...]) -> None:
    """Widen the window to N days and bank every finished turn in it, in one go (nothing is banked twice).

    A progress bar shows transcripts, MB and turns; Ctrl-C stops between two turns, keeping all that is banked,
    and the same command run again goes on from there.
    """
    from automem.bank.passes import backfill, run_pass

    backfill(days, harnesses=harnesses or None)
    report = _with_progress(
        "backfill", True, lambda **kw: run_pass(harnesses=harnesses or None, wait=True, budget_bytes=None, **kw)
    )
    if report.skipped:
        click.echo(f"skipped: {report.skipped}")
        return
    done = f"banked {report.banked} turn(s) from {report.files_read} transcript(s) ({report.bytes_read / 1e6:.1f} MB)"
    for error in report.errors:
        click.echo(f"  error: {error}", err=True)
    if report.interrupted:
        again = " ".join(["automem bank backfill", f"--days {days}", *(f"--harness {h}" for h in harnesses)])
        click.echo(
            f"backfill of {days} day(s) interrupted: {done}; all of it is kept. Run `{again}` to go on from here."
        )
        sys.exit(130)
    click.echo(f"backfill of {days} day(s): {done}")


@bank.command("status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def bank_status(as_json: bool) -> None:
    """Per harness: switch, window, transcripts tracked, turns banked."""
    from automem.bank.service import status

    data = status()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"auto_bank: {'on' if data['auto_bank'] else 'off'}")
    for name, row in data["harnesses"].items():
        click.echo(
            f"  {name:12} {'on ' if row['enabled'] else 'off'}  transcripts {row['transcripts']:>5}  "
            f"tracked {row['tracked']:>5}  banked {row['banked']:>6}  window from {row['window_start'] or '-'}"
        )


# ---------------------------------------------------------------- redact


@cli.command()
@click.option("--batch", is_flag=True, help='JSONL in ({"id","text"} per line), JSONL out, one line per input line.')
@click.option(
    "--tier",
    type=click.Choice(["full", "fast"]),
    default="full",
    hidden=True,
    help="Which tier to run (fast = the hooks' stdlib rules; for measuring).",
)
@click.option("--rescan", is_flag=True, help="Apply today's rules to everything already stored under AUTOMEM_HOME.")
@click.option("--dry-run", is_flag=True, help="With --rescan: report what would change, write nothing.")
@click.option("--json", "as_json", is_flag=True, help="With --rescan: machine-readable output.")
def redact(batch: bool, tier: str, rescan: bool, dry_run: bool, as_json: bool) -> None:
    """Redact secrets: text on stdin -> text on stdout, secrets as [REDACTED:<rule>].

    With --rescan, the stored tree itself: memories, bank, journal, summaries, state, MAIN.md's generated part,
    spool, log and index.db are scrubbed with the current rules (a memory named after a secret is renamed)."""
    if dry_run and not rescan:
        _fail("--dry-run goes with --rescan")
    if rescan:
        from automem.home import Home
        from automem.redact.rescan import rescan as run_rescan

        home = Home.current()
        changes = run_rescan(home, dry_run=dry_run)
        if as_json:
            _echo_json({"dry_run": dry_run, "files": [c.as_dict() for c in changes]})
            return
        verb = "would change" if dry_run else "changed"
        for change in changes:
            rel = change.path.relative_to(home.root)
            moved = f" -> {change.renamed_to.name}" if change.renamed_to else ""
            click.echo(f"{rel}: {change.secrets} secret(s) ({', '.join(change.kinds) or 'redacted'}){moved}")
        click.echo(
            f"rescan: {verb} {len(changes)} file(s)"
            + ("" if dry_run or not changes else "; index.db updated and compacted")
        )
        return
    from automem.redact.cli import run_batch, run_text

    if batch:
        sys.exit(run_batch(sys.stdin, sys.stdout, sys.stderr, tier))
    run_text(sys.stdin, sys.stdout, tier)


# ---------------------------------------------------------------- recall / brief / audit (memory comes back)


def _here():
    """(home, project) for the current folder."""
    import os

    from automem.home import Home

    home = Home.current()
    return home, home.project_for_cwd(os.getcwd())


def _recall_hit_line(hit) -> str:
    when = hit.as_dict()["created"][:10]
    where = f"{hit.project}:" if hit.project else ""
    state = ", candidate" if hit.status == "candidate" else ""
    return f"[{hit.type}] {hit.title}  ({when}, {where}{hit.id}, score {hit.score:.2f}{state})"


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--all", "all_projects", is_flag=True, help="Search every project, not just this one and its links.")
@click.option(
    "--type",
    "type_",
    type=click.Choice(SEARCH_TYPES),
    help="Only this memory type or kind of file.",
)
@click.option("--since", help="Only what was written or seen since: 7d, 12h, 2w or an ISO date.")
@click.option("--harness", help="Only what came from this harness.")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 200))
@click.option("--candidates", is_flag=True, help="Also automatic memories still waiting for evidence (never injected).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def recall(query, all_projects, type_, since, harness, limit, candidates, as_json) -> None:
    """Search memories, bank entries, journal and MAIN.md for QUERY.

    Scope: this project, _global and the projects linked from its MAIN.md
    (a `linked: slug-or-path, ...` line or a `## Linked projects` list above
    the markers), or everything with --all. Ranked by BM25 with reinforcement
    and recency folded in. Candidates (automatic memories not yet promoted)
    are left out unless --candidates is given.
    """
    from automem.recall import parse_since
    from automem.recall import recall as run_recall

    home, project = _here()
    try:
        since_at = parse_since(since)
    except ValueError as exc:
        _fail(str(exc))
    hits = run_recall(
        " ".join(query),
        project=project.slug,
        home=home,
        all_projects=all_projects,
        type=type_,
        since=since_at,
        harness=harness,
        limit=limit,
        candidates=candidates,
    )
    if as_json:
        _echo_json([h.as_dict() for h in hits])
        return
    if not hits:
        click.echo("nothing found")
    for hit in hits:
        click.echo(_recall_hit_line(hit))
        if hit.snippet and hit.snippet != hit.title:
            click.echo(f"    {hit.snippet[:200]}")


@cli.command()
@click.option("--budget", "budget", type=click.IntRange(150, 2500), help="Token budget (default: brief.budget_tokens).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def brief(budget, as_json) -> None:
    """The brief a new session in this folder gets at SessionStart (empty when nothing is remembered)."""
    from automem import brief as brief_mod
    from automem.config import load

    home, project = _here()
    budget = budget or load(home).brief_budget_tokens
    result = brief_mod.current(home, project.slug, budget)
    if as_json:
        _echo_json({"project": project.slug, "budget_tokens": budget, **result.as_dict()})
    elif result.text:
        click.echo(result.text)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def reindex(as_json) -> None:
    """Rebuild the search index from the Markdown tree (safe any time; the tree is the truth)."""
    from automem.index.sync import reindex

    report = reindex()
    if as_json:
        _echo_json(report.as_dict())
    else:
        click.echo(f"indexed {report.indexed} file(s)")


@cli.command()
@click.option("--since", default=None, help="Only memories written or seen since: 7d, 12h, 2w or an ISO date.")
@click.option("--type", "type_", type=click.Choice(TYPES))
@click.option("--all", "all_projects", is_flag=True, help="Every project, not just this one and _global.")
@click.option("--status", type=click.Choice(["candidate", "promoted"]), help="Only candidates, or only promoted ones.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def audit(since, type_, all_projects, status, as_json) -> None:
    """List the automatic memories for review (then forget, keep or ask why).

    A candidate is stored and searchable (recall --candidates) but never injected until it is
    promoted: by your direct instruction, by coming back in another session, by a verified fix,
    or by `automem keep`.
    """
    from automem.audit import audit as run_audit
    from automem.recall import parse_since

    home, project = _here()
    try:
        since_at = parse_since(since)
    except ValueError as exc:
        _fail(str(exc))
    found = run_audit(home, project.slug, since=since_at, type=type_, all_projects=all_projects)
    if status:
        found = [m for m in found if m.state == status]
    if as_json:
        _echo_json([m.as_dict() for m in found])
        return
    if not found:
        click.echo("no automatic memories to review")
    for m in found:
        state = f"promoted: {m.promoted}" if m.state == "promoted" and m.promoted else m.state
        click.echo(
            f"{m.id}  [{m.type}] {_printable(m.summary)}  ({state}; seen {m.seen}x, last {m.last_seen[:10]}, "
            f"{m.harness or '-'})"
        )
    if found:
        click.echo("act on one: automem forget ID | automem keep ID | automem why ID")


def _printable(text: str) -> str:
    """Stored text on a terminal: no escape sequence from a tool's output reaches it."""
    from automem.controls import strip_controls

    return strip_controls(text)


def _audit_call(func, *args, **kwargs):
    from automem.audit import AuditError

    try:
        return func(*args, **kwargs)
    except AuditError as exc:
        _fail(str(exc))


@cli.command()
@click.argument("memory_id")
@click.option("--purge", is_flag=True, help="Delete the file instead of moving it to trash/.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def forget(memory_id, purge, as_json) -> None:
    """Forget a memory: to the project's trash/ (or deleted with --purge) and out of the index."""
    from automem.audit import forget as run_forget

    home, project = _here()
    done = _audit_call(run_forget, home, memory_id, project.slug, purge=purge)
    if as_json:
        _echo_json(done)
    else:
        click.echo(f"forgot {done['id']}" + (" (deleted)" if purge else f" (moved to {done['trash']})"))


@cli.command()
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def keep(memory_id, as_json) -> None:
    """Keep a memory as your own: automation never rewrites or deletes it again."""
    from automem.audit import keep as run_keep

    home, project = _here()
    done = _audit_call(run_keep, home, memory_id, project.slug)
    if as_json:
        _echo_json(done)
    else:
        click.echo(f"kept {done['id']} (source: {done['source']})")


@cli.command()
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def why(memory_id, as_json) -> None:
    """Where a memory came from: session, harness, signals, when and how often seen."""
    from automem.audit import why as run_why

    home, project = _here()
    info = _audit_call(run_why, home, memory_id, project.slug)
    if as_json:
        _echo_json(info)
        return
    for key in (
        "id",
        "type",
        "summary",
        "source",
        "status",
        "promoted",
        "promoted_at",
        "rule",
        "project",
        "session_id",
        "family",
        "harness",
        "signals",
        "created",
        "last_seen",
        "seen",
        "path",
    ):
        value = info[key]
        if key in ("promoted", "promoted_at") and not value:
            continue
        if key == "status":
            value = f"{value} ({'injected into sessions' if info['injected'] else 'not injected until promoted'})"
        click.echo(f"{key:11} {_printable(', '.join(value) if isinstance(value, list) else str(value))}")


@cli.command()
@click.argument("text", nargs=-1, required=True)
@click.option(
    "--type",
    "type_",
    default="observation",
    show_default=True,
    type=click.Choice(TYPES),
)
@click.option("--summary", help="A one-line summary (default: the first line of TEXT).")
@click.option("--global", "is_global", is_flag=True, help="Applies everywhere (stored under _global).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def remember(text, type_, summary, is_global, as_json) -> None:
    """Write a memory by hand (source: user; automation never touches it)."""
    from automem.audit import remember as run_remember

    home, project = _here()
    if is_global:
        project = home.global_project()
    memory = _audit_call(run_remember, home, project, " ".join(text), type=type_, summary=summary)
    outcome = getattr(memory, "outcome", "stored")
    if as_json:
        _echo_json({**memory.as_dict(), "outcome": outcome})
    elif outcome == "stored":
        click.echo(f"remembered {memory.id} [{memory.type}] {memory.summary}")
    elif outcome == "kept":
        click.echo(f"already learned as {memory.id} [{memory.type}] {memory.summary}: it is yours now (kept)")
    else:
        click.echo(f"already remembered as {memory.id} [{memory.type}] {memory.summary}")


# ---------------------------------------------------------------- extract / consent / demo


@cli.command()
@click.option("--session", "session_id", default="", help="Session id (reads its spool).")
@click.option("--transcript", type=click.Path(exists=True, dir_okay=False), help="Transcript file to read.")
@click.option(
    "--harness", type=click.Choice(["claude-code", "codex", "pi", "omp"]), help="Transcript format (guessed)."
)
@click.option("--cwd", help="Project folder (default: the transcript's own cwd).")
@click.option("--no-model", is_flag=True, help="Deterministic rules only, even with AUTOMEM_MODEL set.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def extract(
    session_id: str, transcript: str | None, harness: str | None, cwd: str | None, no_model: bool, as_json: bool
) -> None:
    """Extract lessons from a session by hand (what the Stop hook runs detached)."""
    from automem.extract.pipeline import extract as run_extract

    if not session_id and not transcript:
        _fail("give --session ID, --transcript PATH, or both")
    result = run_extract(session_id=session_id, transcript=transcript, harness=harness, cwd=cwd, use_model=not no_model)
    if as_json:
        _echo_json(result.as_dict())
        return
    if result.skipped:
        click.echo(f"nothing extracted: {result.skipped}")
        return
    click.echo(
        result.message()
        or f"automem: nothing new ({result.candidates} candidate(s), {len(result.reinforced)} reinforced)"
    )
    for memory in result.stored:
        click.echo(f"  [{memory.type}] {memory.summary}  ({memory.path})")


@cli.command()
@click.argument("answer", type=click.Choice(["yes", "no", "ask", "status"]), default="status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def consent(answer: str, as_json: bool) -> None:
    """May automem extract lessons at session end? yes | no | ask | status."""
    from automem import consent as gate
    from automem.home import Home

    home = Home.current()
    root = home.root
    before = gate.read(root)
    if answer != "status":
        gate.write(root, answer)
        if answer == "ask":
            gate.forget_asked(root)
    value = gate.read(root)
    state = {True: "yes", False: "no", "ask": "ask"}.get(value, "not answered")
    caught_up = []
    if value is True and before is not True:
        from automem.extract.pending import extract_pending

        caught_up = extract_pending(home)  # what the hooks spooled while the question was open
    stored = sum(len(r.stored) for r in caught_up)
    if as_json:
        _echo_json(
            {
                "consented": value,
                "state": state,
                "path": str(home.consent_file),
                "sessions_extracted": len(caught_up),
                "memories_stored": stored,
            }
        )
        return
    click.echo(f"consent: {state}")
    if caught_up:
        click.echo(
            f"extracted {len(caught_up)} session(s) captured before consent: {stored} new memor"
            f"{'y' if stored == 1 else 'ies'}"
        )


@cli.command()
@click.option("--keep", is_flag=True, help="Keep the throwaway home and print where it is.")
def demo(keep: bool) -> None:
    """Replay a small bundled session through the real hooks into a throwaway home and show the result."""
    from automem.demo import run_demo

    run_demo(echo=click.echo, keep=keep)


@cli.command()
def mcp() -> None:
    """Serve memory_search, memory_get, memory_bank and context_brief to an MCP client over stdio."""
    from automem.mcp_stdio import serve

    serve()


# ---------------------------------------------------------------- job memory: run / journal


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--job", "job_id", help="Job id for the journal (default: the next number for this project today).")
@click.option("--agent", help="Agent name for the journal (default: the command's name).")
@click.option("--task", help="What the job is for (default: the command line).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(job_id, agent, task, command) -> None:
    """Run a headless agent job with recent memory in its prompt, then journal it: automem run -- CMD ...

    A `{memory}` argument placeholder is replaced by the fenced memory block;
    without one the block goes first on the agent's stdin, before what you
    pipe in. Nothing is added when there is no memory yet. The agent's output
    and exit code pass through; `claude -p --output-format json` results give
    the journal their status, duration and cost. Old journal days are pruned
    (retention.journal_days) each time a job is recorded.
    """
    from automem.jobs import run_job

    outcome = run_job(list(command), job_id=job_id, agent=agent, task=task)
    if sys.stderr.isatty() and outcome.journaled:
        entry = outcome.entry
        click.echo(
            f"automem: job #{entry.job_id} ({entry.status}) journaled"
            + (f"; {len(outcome.stored)} new memories" if outcome.stored else ""),
            err=True,
        )
    sys.exit(outcome.exit_code)


@cli.group()
def journal() -> None:
    """The job journal: projects/<slug>/journal/<YYYY-MM-DD>.md, one entry per job."""


@journal.command("add")
@click.option("--task", required=True, help="What the job was.")
@click.option("--result", default="", help="What came of it.")
@click.option("--status", default="completed", show_default=True, help="completed, failed, interrupted, ...")
@click.option("--learned", default="", help="What the next job should know.")
@click.option("--errors", default="", help="Errors met (redacted and capped).")
@click.option("--agent", default="manual", show_default=True)
@click.option("--job", "job_id", help="Job id (default: the next number for this project today).")
@click.option("--duration", type=float, help="Seconds the job took.")
@click.option("--cost", type=float, help="Cost in USD.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def journal_add(task, result, status, learned, errors, agent, job_id, duration, cost, as_json) -> None:
    """Add a job entry by hand (lessons are extracted from it like from a session, with consent)."""
    import os

    from automem.jobs import record
    from automem.journal import Entry

    home, project = _here()
    try:
        entry = record(
            home,
            project,
            Entry(
                task=task,
                status=status,
                agent=agent,
                job_id=job_id or "",
                duration_s=duration,
                cost_usd=cost,
                result=result,
                learned=learned,
                errors=errors,
            ),
            cwd=os.getcwd(),
        )
    except OSError as exc:
        _fail(f"could not write the journal under {project.journal_dir}: {exc}")
    if as_json:
        _echo_json({"project": project.slug, **entry.as_dict()})
    else:
        click.echo(f"journaled job #{entry.job_id} ({entry.status}) in {project.journal_dir / (entry.day + '.md')}")


@journal.command("show")
@click.option(
    "--days",
    default=2,
    show_default=True,
    type=click.IntRange(1, 3650),
    help="Days back, today included (default: today and yesterday, what a job is given).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def journal_show(days, as_json) -> None:
    """The recent journal of this project, as written (never prunes: recording a job does)."""
    from datetime import date, timedelta

    from automem import journal as journal_mod

    _home, project = _here()
    first = (date.fromisoformat(journal_mod.local_day()) - timedelta(days=days - 1)).isoformat()
    shown = [d for d in journal_mod.days_on_disk(project) if d >= first]
    if as_json:
        _echo_json(
            {
                "project": project.slug,
                "days": days,
                "entries": [
                    e.as_dict() for d in shown for e in journal_mod.entries_of(journal_mod.read_day(project, d), d)
                ],
            }
        )
        return
    if not shown:
        click.echo("no journal entries")
    for day in shown:
        click.echo(journal_mod.read_day(project, day).rstrip() + "\n")


def main() -> None:  # pragma: no cover - console entry kept for `python -m automem.cli`
    cli()


if __name__ == "__main__":  # pragma: no cover
    main()
