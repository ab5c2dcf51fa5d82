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


def _fail(message: str) -> None:
    raise click.ClickException(message)


def _echo_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


class _Group(click.Group):
    """Turns the package's own user-facing errors into clean CLI errors."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        from automem.config import ConfigError

        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="automem")
def cli() -> None:
    """automem: memory for coding agents, kept as Markdown on your own disk.

    Hooks capture what happens in Claude Code, Codex and pi sessions; lessons
    and finished turns land under AUTOMEM_HOME (default ~/.automem).
    """


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

    show_bar = sys.stderr.isatty() and not as_json

    def progress(harness: str, banked: int) -> None:
        if show_bar:
            click.echo(f"\r{harness}: {banked} banked", nl=False, err=True)

    report = run_pass(harnesses=harnesses or None, wait=True, progress=progress)
    if show_bar:
        click.echo("", err=True)
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
    )
    for error in report.errors:
        click.echo(f"  error: {error}", err=True)


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
@click.option("--days", type=click.IntRange(1, 3650), required=True, help="Bank turns that finished in the last N days.")
@click.option("--harness", "harnesses", multiple=True, help="Only this harness (repeatable).")
def bank_backfill(days: int, harnesses: tuple[str, ...]) -> None:
    """Widen the window to N days and re-read every transcript once (nothing is banked twice)."""
    from automem.bank.passes import backfill, run_pass

    backfill(days, harnesses=harnesses or None)
    report = run_pass(harnesses=harnesses or None, wait=True)
    click.echo(f"backfill of {days} day(s): banked {report.banked} turn(s)" + (" (more to read)" if report.backlog else ""))


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


def main() -> None:  # pragma: no cover - console entry kept for `python -m automem.cli`
    cli()


if __name__ == "__main__":  # pragma: no cover
    main()
