"""Job memory: run a headless agent job with recent memory in, a journal entry out.

``run_job(["claude", "-p", "{memory}Fix the tests", "--output-format", "json"])``:

1. the memory block is the project's brief (brief.py: MAIN.md, memories, newest bank titles, the
   recent journal), fenced and labelled as notes from memory; empty when nothing is remembered;
2. it goes where ``{memory}`` stands in the arguments, or, with no placeholder, first on the
   agent's stdin followed by whatever the user piped in (a terminal stdin is not forwarded then);
   with no memory the command runs unchanged (``{memory}`` becomes "", stdin is inherited);
3. ``supervise.run`` runs the agent: its stdout and stderr pass through as they come, and its
   exit code is ours (a signal becomes 128+N, a missing command 127, one that cannot be executed
   126), even when the journal cannot be written (one line on stderr, the reason in automem.log);
   SIGINT, SIGTERM and SIGHUP sent to us reach the agent (a Ctrl-C at the terminal reaches it once,
   not twice); a closed stdin, stdout or stderr is /dev/null;
4. a journal entry is appended: status, duration and cost from ``--output-format json`` output
   (a ``{"type": "result", ...}`` object, alone or as the last line of stream-json), else the exit
   code and the measured time; ``Learned:`` / ``Errors:`` lines the agent prints are kept;
5. lessons are extracted from the job like from a session: the job is written as a one-turn
   transcript (task as the prompt, the agent run as a tool call with its errors, what it learned
   as a follow-up prompt) and handed to ``extract.pipeline.extract``, which asks for consent,
   de-duplicates, and counts an error seen in earlier jobs as a repeat.

Job ids are given (``--job``) or the next number for the project today, taken when the entry is
written, under the journal's lock, so two jobs running at once never share one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from automem import supervise
from automem.home import Home, Project
from automem.journal import Entry

PLACEHOLDER = "{memory}"
ERROR_LINES = 5

_LEARNED = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?learned(?:\*\*)?\s*:(?:\*\*)?\s*(.+)$", re.I | re.M)
_ERRORS = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?errors?(?:\*\*)?\s*:(?:\*\*)?\s*(.+)$", re.I | re.M)


@dataclass
class AgentReport:
    """What the agent said about its own run (``claude -p --output-format json``)."""

    is_error: bool = False
    subtype: str = ""
    duration_s: float | None = None
    cost_usd: float | None = None
    result: str = ""


@dataclass
class JobOutcome:
    exit_code: int
    entry: Entry
    injected: bool = False
    extraction: object | None = None  # extract.pipeline.Result, or None when it could not run
    stored: list[str] = field(default_factory=list)
    journaled: bool = False  # False when the journal could not be written (the job still ran)


# ---------------------------------------------------------------- memory in


def memory_block(home: Home, project: Project, budget_tokens: int | None = None) -> str:
    """The fenced brief of the project ("" when it has no memory), with the index brought up to date."""
    from automem import brief

    return brief.current(home, project.slug, budget_tokens).text


def place_memory(command: list[str], block: str) -> tuple[list[str], bool]:
    """(arguments with ``{memory}`` replaced by the block, whether any argument held the placeholder)."""
    used = any(PLACEHOLDER in arg for arg in command)
    filler = block + "\n\n" if block else ""
    return [arg.replace(PLACEHOLDER, filler) for arg in command], used


# ---------------------------------------------------------------- the run


def run_job(
    command: list[str],
    *,
    job_id: str | None = None,
    agent: str | None = None,
    task: str | None = None,
    home: Home | None = None,
    cwd: str | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
    stdin_is_tty: bool | None = None,
    extract: bool = True,
) -> JobOutcome:
    """Run one agent job with memory in and a journal entry out; see the module docstring."""
    if not command:
        raise ValueError("no command to run")
    home = home or Home.current()
    cwd = cwd or os.getcwd()
    project = home.project_for_cwd(cwd)
    streams = supervise.Streams.current(stdin, stdout, stderr, stdin_is_tty)

    try:
        block = memory_block(home, project)
    except Exception as exc:  # noqa: BLE001 - memory is a help, never a reason for the job not to run
        _log(home, f"memory block failed, job runs without: {type(exc).__name__}: {exc}")
        block = ""
    argv, placed = place_memory(command, block)
    head = b"" if placed or not block else (block + "\n\n").encode("utf-8")

    run = supervise.run(argv, cwd=cwd, streams=streams, head=head)

    entry = summarize(
        command,
        run.exit_code,
        run.stdout,
        run.stderr,
        run.seconds,
        agent=agent,
        task=task,
        spawn_error=run.spawn_error,
        stopped=run.stopped,
    )
    entry.job_id = job_id or ""
    outcome = JobOutcome(exit_code=run.exit_code, entry=entry, injected=bool(block))
    try:
        outcome.entry = record(home, project, entry, command=command, cwd=cwd, extract=extract, outcome=outcome)
        outcome.journaled = True
    except Exception as exc:  # noqa: BLE001 - the agent's exit code is the job's result; the journal is extra
        _log(home, f"journal write failed: {type(exc).__name__}: {exc}")
        supervise.write(
            streams.stderr,
            f"automem run: the job was not journaled ({type(exc).__name__}: {exc}); the agent's exit code is kept\n",
        )
    return outcome


# ---------------------------------------------------------------- what happened


def parse_report(stdout_text: str) -> AgentReport | None:
    """The agent's own result object (``--output-format json`` or the last line of stream-json)."""
    text = stdout_text.strip()
    if not text or "{" not in text:
        return None
    candidates = [text] if text.startswith("{") else []
    candidates += [line.strip() for line in reversed(text.splitlines()[-50:]) if line.strip().startswith("{")]
    for raw in candidates:
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if isinstance(data, list):  # --output-format json --verbose prints the whole message list
            data = next((d for d in reversed(data) if isinstance(d, dict) and d.get("type") == "result"), None)
        if not isinstance(data, dict) or data.get("type") != "result":
            continue
        cost = data.get("total_cost_usd", data.get("cost_usd"))
        duration = data.get("duration_ms")
        return AgentReport(
            is_error=bool(data.get("is_error")),
            subtype=str(data.get("subtype") or ""),
            duration_s=float(duration) / 1000 if isinstance(duration, (int, float)) else None,
            cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
            result=str(data.get("result") or "") if not isinstance(data.get("result"), (dict, list)) else "",
        )
    return None


def _self_reported(pattern: re.Pattern, text: str) -> list[str]:
    return [m.group(1).strip().strip("*").strip() for m in pattern.finditer(text or "")]


def _without_reports(text: str) -> str:
    return _ERRORS.sub("", _LEARNED.sub("", text or ""))


def error_lines(text: str, code: int) -> list[str]:
    """The lines of the agent's stderr that name its failure (the last few, distinct)."""
    from automem.capture.signals import detect_errors

    found = [e["line"].strip() for e in detect_errors(text[-20000:], is_error=True, exit_code=code)]
    if not found:
        found = [line.strip() for line in text.splitlines() if line.strip()][-3:]
    return list(dict.fromkeys(line for line in found if line))[-ERROR_LINES:]


def summarize(
    command: list[str],
    code: int,
    out_text: str,
    err_text: str,
    measured: float,
    *,
    agent: str | None = None,
    task: str | None = None,
    spawn_error: str = "",
    stopped: bool = False,
) -> Entry:
    """The journal entry of one run (not yet redacted or capped: journal.append does that).

    ``stopped``: a signal sent to us was passed on to the agent, so a failure is an interruption.
    """
    report = parse_report(out_text)
    if report is not None:
        failed = code != 0 or report.is_error or (report.subtype not in ("", "success"))
        text = report.result
        duration = report.duration_s if report.duration_s is not None else measured
        cost = report.cost_usd
    else:
        failed = code != 0
        text = out_text
        duration, cost = measured, None
    status = "completed"
    if failed:
        status = "interrupted" if (stopped and not spawn_error) or code in supervise.STOP_CODES else "failed"
    plain = [line.strip() for line in _without_reports(text).splitlines() if line.strip()]
    summary = " ".join(plain) if report is not None else (plain[-1] if plain else "")
    if failed and code != 0 and not summary:
        summary = f"exit code {code}"
    errors = _self_reported(_ERRORS, text)
    if failed:
        if spawn_error:
            errors.append(spawn_error)  # what it printed on stderr as well: nothing more to add
        elif report is not None and report.is_error and report.result:
            errors.append(report.result)
        errors += error_lines(err_text, code) if err_text.strip() and not spawn_error else []
        if not errors:
            errors.append(f"exit code {code}")
    return Entry(
        task=task if task else default_task(command),
        status=status,
        agent=agent or agent_name(command),
        duration_s=duration,
        cost_usd=cost,
        result=summary,
        learned="; ".join(_self_reported(_LEARNED, text)),
        errors="; ".join(dict.fromkeys(errors)),
    )


_INTERPRETER = re.compile(r"^(?:python[\d.]*|node|bash|sh|zsh|dash|ksh|fish|ruby|perl|deno|bun|uv|uvx|npx|env)$")
# Flags whose value is code or a module, not a script path: ``bash -lc "<script>"``, ``python -m x``,
# ``node -e``. Short ones count inside a cluster (``-lc``, ``-Bc``); the value is never the name.
_INLINE_SHORT = {
    "python": "cm",
    "ruby": "e",
    "perl": "eE",
    "node": "ep",
    "bun": "e",
    "deno": "",
    "npx": "c",
    "uv": "",
    "uvx": "",
    "env": "S",
}
_SHELL_INLINE = "c"
_INLINE_LONG = ("--eval", "--print", "--call", "--command", "--module", "--split-string")


def _inline_flag(interpreter: str, arg: str) -> bool:
    if arg.startswith("--"):
        return arg.split("=", 1)[0] in _INLINE_LONG
    family = re.sub(r"[\d.]+$", "", interpreter)
    letters = _INLINE_SHORT.get(family, _SHELL_INLINE)
    return any(ch in letters for ch in arg[1:])


def agent_name(command: list[str]) -> str:
    """The command's name; for an interpreter, the script or tool it runs (``python3 x.py`` -> ``x``).

    Inline code (``bash -c "<script>"``, ``python -c``/``-m``, ``node -e``) gives the interpreter's
    name: a script's text is no name, and it may hold a secret.
    """
    name = Path(command[0]).name
    if _INTERPRETER.match(name):
        for arg in command[1:]:
            if arg == "-":
                return name  # the script comes on stdin
            if arg.startswith("-"):
                if _inline_flag(name, arg):
                    return name
                continue
            if PLACEHOLDER in arg or "=" in arg:
                continue
            if arg.split() != [arg]:
                return name  # text with spaces is code or a prompt, not a script
            return Path(arg).stem or name
    return name


def default_task(command: list[str]) -> str:
    """The command line without the placeholder, when no --task was given."""
    return " ".join(
        shlex.quote(arg.replace(PLACEHOLDER, "")) if arg.replace(PLACEHOLDER, "") else "" for arg in command
    ).strip()


# ---------------------------------------------------------------- memory out


def record(
    home: Home,
    project: Project,
    entry: Entry,
    *,
    command: list[str] | None = None,
    cwd: str | None = None,
    extract: bool = True,
    outcome: JobOutcome | None = None,
) -> Entry:
    """Append the entry to today's journal (pruning old days), then extract lessons from it."""
    from automem import journal
    from automem.config import load

    written = journal.append(project, entry, retention_days=load(home, strict=False).journal_days)
    if extract:
        try:
            result = extract_lessons(home, project, written, command=command, cwd=cwd)
        except Exception as exc:  # noqa: BLE001 - the journal entry is written; lessons are a bonus
            _log(home, f"job extraction failed: {type(exc).__name__}: {exc}")
            result = None
        if outcome is not None:
            outcome.extraction = result
            outcome.stored = [m.id for m in getattr(result, "stored", [])]
    return written


def session_id_for(project: Project, entry: Entry) -> str:
    return f"job-{project.slug}-{entry.day}-{entry.job_id}"[:120]


def extract_lessons(
    home: Home, project: Project, entry: Entry, *, command: list[str] | None = None, cwd: str | None = None
):
    """Run the session extractor over the job, written as a one-turn transcript (removed afterwards)."""
    from automem.extract.pipeline import extract
    from automem.store import remove, write_file

    session_id = session_id_for(project, entry)
    where = cwd or project.root or ""
    path = home.jobs_state_dir / f"{session_id}.jsonl"
    lines = job_transcript(session_id, where, entry, command)
    # built from the journal entry, which is redacted already
    write_file(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), home=home)
    try:
        return extract(home, session_id=session_id, transcript=path, harness="claude-code", cwd=where or None)
    finally:
        try:
            remove(path, home=home)
        except OSError:
            pass


def job_transcript(session_id: str, cwd: str, entry: Entry, command: list[str] | None) -> list[dict]:
    """The job as Claude Code transcript records: what the extractor reads for a session.

    Built from the journal entry, which is already redacted and capped.
    """
    from automem.isotime import now_iso

    ts = now_iso()
    base = {"sessionId": session_id, "timestamp": ts, "cwd": cwd}
    failed = entry.status != "completed"
    # the command line redacted (state/jobs/ is left behind if we are killed while the extractor runs)
    call = _redacted(default_task(command)) if command else f"{entry.agent} job #{entry.job_id}"
    output = "\n".join(part.strip() for part in entry.errors.split(";") if part.strip()) if failed else entry.result
    if failed:
        output = "Exit code 1\n" + (output or "failed")
    records = [
        {**base, "type": "user", "uuid": f"{session_id}-task", "message": {"role": "user", "content": entry.task}},
        {
            **base,
            "type": "assistant",
            "uuid": f"{session_id}-run",
            "message": {
                "id": f"{session_id}-m1",
                "role": "assistant",
                "model": "<synthetic>",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"{session_id}-call",
                        "name": "Bash",
                        "input": {"command": call, "description": f"{entry.agent} job"},
                    }
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": f"{session_id}-out",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"{session_id}-call",
                        "content": output or "(no output)",
                        "is_error": failed,
                    }
                ],
            },
        },
    ]
    if entry.learned:
        records.append(
            {
                **base,
                "type": "user",
                "uuid": f"{session_id}-learned",
                "message": {"role": "user", "content": entry.learned},
            }
        )
    records.append({**base, "type": "system", "subtype": "turn_duration", "uuid": f"{session_id}-end"})
    return records


def _redacted(text: str) -> str:
    from automem.store import redacted

    return redacted(text)


def _log(home: Home, message: str) -> None:
    from automem.log import log_error

    log_error("jobs", message, home=str(home.root))
