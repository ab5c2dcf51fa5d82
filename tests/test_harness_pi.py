"""pi reader on real v1 sessions (counted by hand) and the omp reader on hand-written fixtures."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from automem.harness import READERS, omp, pi

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"
PI = CORPUS / "pi" / "pi-mono"
needs_corpus = pytest.mark.skipif(not PI.is_dir(), reason="shared corpus not available")
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "omp"
OMP_MAIN = FIXTURES / "2026-03-02T09-00-00-000Z_0b8c1f2e-5a6d-4c3b-9e7f-1a2b3c4d5e6f.jsonl"
OMP_FORK = FIXTURES / "2026-03-02T10-00-00-000Z_7d6e5f4a-3b2c-4d1e-8f9a-0b1c2d3e4f5a.jsonl"


def _read(module, path: Path, seconds_after_mtime: float, start: int = 0):
    stream = module.read_turns(path, start_offset=start, now=os.stat(path).st_mtime + seconds_after_mtime)
    return list(stream), stream


@needs_corpus
def test_pi_v1_hand_counted_turns_and_aborts():
    # Counted by hand in large-session.jsonl: 88 entries with message.role == "user" (each a prompt);
    # 21 assistant messages with stopReason "aborted", each ending its own turn; the last prompt
    # ("yeah, do it all") ends with stopReason "stop", so every turn is finished.
    turns, stream = _read(pi, PI / "large-session.jsonl", 10)
    assert len(turns) == 88 and all(t.finished for t in turns)
    assert sum(t.interrupted for t in turns) == 21
    assert {t.finish_reason for t in turns if t.interrupted} == {"aborted"}
    assert turns[0].prompt == "/mode"
    assert turns[1].prompt.startswith("read packages/coding-agent/docs/theme.md")
    assert turns[-1].prompt == "yeah, do it all"
    assert turns[0].session_id == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    assert turns[0].cwd == "/Users/badlogic/workspaces/pi-mono"
    # the 4th turn's assistant stopped with "error" (terminated): it waited and the next prompt ended it
    assert turns[3].finish_reason == "next_prompt"
    assert turns[3].prompt.startswith("alright, i think there's only one file left")
    failing = [a for t in turns for a in t.actions if a.is_error and a.exit_code is not None]
    assert failing and {a.exit_code for a in failing} >= {1}
    assert len({t.turn_key for t in turns}) == 88
    assert stream.resume_offset == os.path.getsize(PI / "large-session.jsonl")


@needs_corpus
def test_pi_branched_session_copies_are_not_banked(tmp_path):
    # before-compaction.jsonl has a branchedFrom header written at 00:53:29; all 55 user prompts in it
    # are older (copied from the parent session), so none is banked from this file.
    source = PI / "before-compaction.jsonl"
    turns, stream = _read(pi, source, 3600)
    assert turns == [] and stream.resume_offset == os.path.getsize(source)
    # The same entries without the fork header are an ordinary session: 55 prompts, all finished.
    with open(source, "rb") as src:
        header = json.loads(src.readline())
        rest = src.read()
    header.pop("branchedFrom")
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(json.dumps(header).encode() + b"\n" + rest)
    turns, _ = _read(pi, plain, 3600)
    assert len(turns) == 55 and all(t.finished for t in turns)
    assert turns[0].prompt.startswith("alright, read @packages/coding-agent/src/main.ts")
    assert turns[-1].prompt == "ok"
    # compaction entries are not prompts; the prompts after them are ordinary turns
    assert "alright, where were we?" in [t.prompt for t in turns]
    # the one assistant "error" (400 on "yo") waited; the next prompt "ok" ended that turn
    yo = next(t for t in turns if t.prompt == "yo")
    assert yo.finish_reason == "next_prompt" and yo.answer is None


def test_omp_fixture_turn_rules():
    turns, stream = _read(omp, OMP_MAIN, 10)
    assert [t.prompt.split()[0] for t in turns] == ["The", "Run", "Now", "Deploy"]
    assert [t.finish_reason for t in turns] == ["stop", "stop", "aborted", "open"]
    first, second, third, last = turns
    assert first.harness == "omp" and first.session_id == "0b8c1f2e-5a6d-4c3b-9e7f-1a2b3c4d5e6f"
    assert first.model == "anthropic/claude-sonnet-4-5"  # default role, not the smol model
    assert first.todos == [
        {"content": "Find total computation", "status": "in_progress"},
        {"content": "Add discount test", "status": "pending"},
    ]
    assert first.cwd == "/home/dev/shop" and first.turn_id == "1772442060000"
    # an error stop waited; the retry's stop finished the turn; bash exit code parsed from the result
    assert second.answer.startswith("The failing test expected the old total")
    assert second.actions[0].exit_code == 2 and second.actions[0].is_error
    assert third.interrupted and third.answer == "Starting with"
    assert last.model == "openai/gpt-5.1-codex"
    assert stream.resume_offset == last.start_offset


def test_omp_quiet_rule_needs_no_pending_tool_and_week_drops():
    turns, stream = _read(omp, OMP_MAIN, 3600)
    assert turns[-1].finish_reason == "open"  # waiting on its deploy tool call: quiet is not enough
    assert stream.resume_offset == turns[-1].start_offset
    turns, stream = _read(omp, OMP_MAIN, 8 * 86400)
    assert turns[-1].finish_reason == "dropped" and not turns[-1].finished and turns[-1].settled
    assert stream.resume_offset == OMP_MAIN.stat().st_size


def test_omp_quiet_rule_finishes_answered_turn(tmp_path):
    lines = OMP_MAIN.read_text().splitlines(keepends=True)
    assert '"stopReason":"stop"' in lines[9]
    # first turn only, its final answer written without a stop reason (the session exited mid-stream)
    path = tmp_path / OMP_MAIN.name
    path.write_text("".join(lines[:9]) + lines[9].replace('"stopReason":"stop"', '"stopReason":null'))
    turns, _ = _read(omp, path, 10)
    assert [t.finished for t in turns] == [False]
    turns, _ = _read(omp, path, 301)
    assert [t.finish_reason for t in turns] == ["quiet"]


def test_omp_fork_copies_are_skipped():
    turns, _ = _read(omp, OMP_FORK, 10)
    assert [t.prompt for t in turns] == ["Also round totals to cents"]
    assert turns[0].session_id == "7d6e5f4a-3b2c-4d1e-8f9a-0b1c2d3e4f5a"
    # reading from the middle still knows the fork point (the header is read separately)
    middle = turns[0].start_offset
    again, _ = _read(omp, OMP_FORK, 10, start=middle)
    assert [t.turn_key for t in again] == [turns[0].turn_key]


def test_discovery_skips_subagent_folders(tmp_path):
    sessions = tmp_path / ".omp" / "agent" / "sessions" / "--home-dev-shop--"
    sessions.mkdir(parents=True)
    main = sessions / OMP_MAIN.name
    shutil.copy(OMP_MAIN, main)
    sub_dir = sessions / OMP_MAIN.stem
    sub_dir.mkdir()
    sub = sub_dir / "subagent-1.jsonl"
    shutil.copy(OMP_MAIN, sub)
    assert omp.discover({"HOME": str(tmp_path)}) == [main]
    assert list(omp.read_turns(sub, now=0)) == []
    pi_dir = tmp_path / "custom-pi"
    (pi_dir / "sessions" / "--x--").mkdir(parents=True)
    shutil.copy(OMP_MAIN, pi_dir / "sessions" / "--x--" / "a.jsonl")
    assert [p.name for p in pi.discover({"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(pi_dir)})] == ["a.jsonl"]
    assert pi.discover({"HOME": str(tmp_path)}) == []
    assert READERS["omp"] is omp and READERS["pi"] is pi


def test_omp_discovery_finds_every_folder_scheme(tmp_path):
    # omp names a session folder "-<path below HOME>" ("-" for HOME itself), "-tmp-<path>" below the temp
    # folder, and "--<absolute path>--" elsewhere; a session's own folder holds its subagents' runs
    sessions = tmp_path / ".omp" / "agent" / "sessions"
    mains = []
    for folder in ("-", "-work-shop", "-tmp-scratch", "--srv-app--"):
        (sessions / folder).mkdir(parents=True)
        mains.append(sessions / folder / OMP_MAIN.name)
        shutil.copy(OMP_MAIN, mains[-1])
    nested = sessions / "-work-shop" / OMP_MAIN.stem
    nested.mkdir()
    shutil.copy(OMP_MAIN, nested / "0-scout.jsonl")
    assert omp.discover({"HOME": str(tmp_path)}) == sorted(mains)
    assert list(omp.read_turns(nested / "0-scout.jsonl", now=0)) == []


def test_omp_discovery_finds_profiles_a_config_folder_and_xdg_data(tmp_path):
    # omp's path helpers: <config>/agent/sessions, <config>/profiles/<name>/agent/sessions (OMP_PROFILE), with
    # PI_CONFIG_DIR naming <config>; after `omp config init-xdg`, $XDG_DATA_HOME/omp/sessions and
    # $XDG_DATA_HOME/omp/profiles/<name>/sessions
    roots = [
        tmp_path / ".omp" / "agent",
        tmp_path / ".omp" / "profiles" / "work" / "agent",
        tmp_path / "xdg" / "omp",
        tmp_path / "xdg" / "omp" / "profiles" / "work",
    ]
    mains = []
    for root in roots:
        (root / "sessions" / "-shop").mkdir(parents=True)
        mains.append(root / "sessions" / "-shop" / OMP_MAIN.name)
        shutil.copy(OMP_MAIN, mains[-1])
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert omp.discover(env) == sorted(mains)
    assert omp.discover({"HOME": str(tmp_path)}) == sorted(mains[:2])
    custom = tmp_path / ".omp-dev" / "agent" / "sessions" / "-shop"
    custom.mkdir(parents=True)
    shutil.copy(OMP_MAIN, custom / OMP_MAIN.name)
    assert omp.discover({"HOME": str(tmp_path), "PI_CONFIG_DIR": ".omp-dev"}) == [custom / OMP_MAIN.name]
    # PI_CODING_AGENT_DIR belongs to pi's reader: one file is never read by both
    assert omp.discover({"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(roots[0])}) == sorted(mains[:2])
