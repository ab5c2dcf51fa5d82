"""`automem demo`: a bundled sample session through the real hooks into a throwaway home.

Shows automem working on a machine with no agent installed: each hook payload of
data/demo_session/events.json is piped into `automem hook <Event>` as a subprocess (exactly
what a harness runs), the detached Stop worker extracts the lessons, and the next session's
SessionStart hook prints the brief it would inject. The throwaway home consents on the user's
behalf (it is deleted afterwards); the real AUTOMEM_HOME is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from automem.home import Home

WAIT_SECONDS = 30.0


def load_session(cwd: str, transcript: str) -> dict:
    folder = resources.files("automem") / "data" / "demo_session"
    raw = (folder / "events.json").read_text(encoding="utf-8")
    return json.loads(raw.replace("{cwd}", cwd).replace("{transcript}", transcript))


def write_transcript(path: Path, cwd: str) -> None:
    folder = resources.files("automem") / "data" / "demo_session"
    text = (folder / "transcript.jsonl").read_text(encoding="utf-8").replace("{cwd}", cwd)
    path.write_text(text, encoding="utf-8")


def hook(event: str, payload: dict, env: dict) -> dict | None:
    """Run the real hook entry point as the harness would; its JSON output, if any."""
    proc = subprocess.run(
        [sys.executable, "-m", "automem", "hook", event, "--harness", "claude-code"],
        input=json.dumps(payload),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = proc.stdout.strip()
    try:
        return json.loads(out) if out else None
    except ValueError:
        return None


def replay(root: Path, env: dict) -> tuple[str, str, list[dict]]:
    """Replay the session into ``root``; returns (session id, project cwd, hook outputs)."""
    project = root / "demo-project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    transcript = root / "transcript.jsonl"
    write_transcript(transcript, str(project))
    session = load_session(str(project), str(transcript))
    outputs = []
    for item in session["events"]:
        payload = {
            "session_id": session["session_id"],
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": item["event"],
            **item["payload"],
        }
        outputs.append({"event": item["event"], "output": hook(item["event"], payload, env)})
    return session["session_id"], str(project), outputs


def wait_for_worker(home: Home, session_id: str, seconds: float = WAIT_SECONDS) -> bool:
    """The Stop hook's worker is detached: wait until it leaves its note (or its state)."""
    from automem.capture.paths import safe_session_id

    state = home.extract_state_dir / f"{safe_session_id(session_id)}.json"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if state.exists():
            time.sleep(0.2)
            return True
        time.sleep(0.1)
    return False


def wait_for_locks(home: Home, seconds: float = WAIT_SECONDS) -> None:
    """Until no detached worker holds a lock in this home (they write nothing after letting go)."""
    import fcntl

    deadline = time.monotonic() + seconds
    extract = home.extract_state_dir
    for lock in [
        home.state_dir / "bank.lock",
        *extract.glob("*.next"),
        *extract.glob("*.worker"),
        *extract.glob("*.lock"),
    ]:
        try:
            fd = os.open(lock, os.O_RDONLY)
        except OSError:
            continue
        try:
            while time.monotonic() < deadline:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(0.05)
        finally:
            os.close(fd)


def run_demo(echo: Callable[[str], None] = print, keep: bool = False) -> dict:
    root = Path(tempfile.mkdtemp(prefix="automem-demo-"))
    home = root / "home"
    tree = Home(home)
    env = {**os.environ, "AUTOMEM_HOME": str(home), "HOME": str(root), "AUTOMEM_MODEL": "off"}
    try:
        from automem import consent

        home.mkdir(parents=True)
        consent.write(home, "yes")  # the throwaway home consents; your own answer is asked separately
        echo(f"== automem demo: a scripted session replayed through the real hooks into {home}")
        session_id, cwd, outputs = replay(root, env)
        echo("\n== captured signals (spool)")
        from automem.capture import spool

        records = spool.read(session_id, str(home))
        for rec in records:
            if rec.get("kind") in ("error", "feedback", "rejection", "interrupt"):
                detail = rec.get("signature") or rec.get("text") or rec.get("feedback") or ""
                label = rec.get("feedback") if rec.get("kind") == "feedback" else rec.get("error_type", "")
                echo(f"  {rec.get('kind'):9} {label:12} {detail}"[:160])
        finished = wait_for_worker(tree, session_id)
        if not finished:  # a slow machine: run the same extraction in the foreground
            from automem.extract.worker import run_extraction

            previous = os.environ.get("AUTOMEM_HOME")
            os.environ["AUTOMEM_HOME"] = str(home)
            try:
                run_extraction(session_id, str(root / "transcript.jsonl"), "claude-code", cwd)
            finally:
                if previous is None:
                    os.environ.pop("AUTOMEM_HOME", None)
                else:
                    os.environ["AUTOMEM_HOME"] = previous
        wait_for_locks(tree)
        # what the next Stop hook would print, read the way the hook reads it (a real Stop would start another
        # detached worker, which could still be writing when this throwaway home is removed)
        from automem.extract.trigger import stop_message

        stop = stop_message(str(home), session_id)
        memories = sorted(tree.projects_dir.glob("*/memories/*.md"))
        echo(f"\n== memories stored ({len(memories)})")
        for path in memories:
            from automem.store.memories import parse

            memory = parse(path)
            echo(f"  [{memory.type}] {memory.summary}  ({memory.scope}; tags: {', '.join(memory.tags)})")
        if stop and stop.get("systemMessage"):
            echo(f"\n== what the user saw at the next Stop\n  {stop['systemMessage']}")
        start = hook(
            "SessionStart",
            {"session_id": "demo-next-session", "cwd": cwd, "source": "startup", "hook_event_name": "SessionStart"},
            env,
        )
        context = ((start or {}).get("hookSpecificOutput") or {}).get("additionalContext") or ""
        echo("\n== the brief the next session gets (SessionStart additionalContext)")
        echo(context if context else "  (no brief: the SessionStart hook printed none)")
        return {
            "home": str(home),
            "memories": [str(p) for p in memories],
            "brief": context,
            "spool": records,
            "stop": stop,
        }
    finally:
        if keep:
            echo(f"\n(kept {root})")
        else:
            wait_for_locks(tree)
            shutil.rmtree(root, ignore_errors=True)
