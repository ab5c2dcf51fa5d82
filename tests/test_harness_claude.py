"""Claude Code reader on real transcripts (counted by hand) and on small synthetic edge cases."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from automem.harness import READERS, claude_code

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "transcripts"
CLAUDE = CORPUS / "claude"
needs_corpus = pytest.mark.skipif(not CLAUDE.is_dir(), reason="shared corpus not available")

OMARCHY = CLAUDE / "omarchy-backup" / "projects" / "-home-vwestberg-Claude"
VIEWER = CLAUDE / "claude-code-viewer" / "projects" / "sample-project"


def _read(path: Path, quiet: bool, start: int = 0):
    """Read with ``now`` relative to the file's mtime: 10 s (not quiet) or 1 h (quiet) later."""
    now = os.stat(path).st_mtime + (3600 if quiet else 10)
    stream = claude_code.read_turns(path, start_offset=start, now=now)
    return list(stream), stream


@needs_corpus
def test_hand_counted_turns_2_1_81_with_interrupt_rejections_and_turn_duration():
    # Counted by hand in 44ef5cbf…jsonl: `user` lines whose content is a plain string and that are not
    # isMeta are the prompts, on lines 2, 7, 13, 17, 27, 34 and 67 (1-based) = 7 turns. Line 65 is
    # "[Request interrupted by user for tool use]" (ends the 6th), line 92 is system/turn_duration
    # (ends the 7th); the others end at the next prompt. Lines 74 and 79 are rejections with feedback.
    turns, stream = _read(OMARCHY / "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl", quiet=False)
    finished = [t for t in turns if t.finished]
    assert len(finished) == 7 == len(turns)
    assert [t.prompt.split()[0] for t in finished] == ["dir", "I", "I", "yes", "that", "sweet", "teams"]
    assert [t.finish_reason for t in finished] == ["next_prompt"] * 5 + ["interrupt", "turn_duration"]
    assert finished[5].interrupted and not finished[6].interrupted
    assert finished[6].rejections == [
        "I dont use btop set that as super shift alt t instead",
        "super shift alt t should open btop",
    ]
    # lines 14-15 are one API message (same message.id) split into a thinking line and a text line
    assert finished[2].answer.startswith("The Claude Code keybindings system only supports")
    assert all(t.harness == "claude-code" and t.session_id == "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b" for t in turns)
    assert finished[0].turn_key.startswith("claude-code:44ef5cbf-9cc3-4f7b-ac40-337a4d39713b:")
    assert finished[0].cwd == "/home/vwestberg/Claude"
    assert finished[6].plan and finished[6].plan.startswith("# Add Teams Keybinding")
    assert stream.resume_offset == os.path.getsize(OMARCHY / "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl")


@needs_corpus
def test_last_turn_waits_for_quiet_rule_since_end_turn_is_not_enough():
    # 8c880a68…: prompts on lines 3, 11, 18, 26, 34 = 5 turns; the last ends with a plain end_turn and
    # no turn_duration, so it is finished only once the file has been quiet for 5 minutes.
    path = OMARCHY / "8c880a68-969b-4b92-8733-a4927179d072.jsonl"
    turns, stream = _read(path, quiet=False)
    assert [t.finished for t in turns] == [True, True, True, True, False]
    assert turns[3].finish_reason == "interrupt"
    last = turns[-1]
    assert last.prompt.startswith("so if i close you")
    assert stream.resume_offset == last.start_offset < os.path.getsize(path)

    turns_quiet, stream_quiet = _read(path, quiet=True)
    assert [t.finish_reason for t in turns_quiet][-1] == "quiet"
    assert sum(t.finished for t in turns_quiet) == 5
    assert stream_quiet.resume_offset == os.path.getsize(path)
    assert [t.turn_key for t in turns_quiet] == [t.turn_key for t in turns]


@needs_corpus
def test_inline_sidechains_1_0_x_are_not_turns():
    # fe5e1c67…: 405 isSidechain lines hold the Task subagents' own prompts; the main chain has the
    # /orchestrator command (line 2) and "Thanks! Please update CLAUDE.md…" (line 434) = 2 turns.
    turns, _ = _read(VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", quiet=True)
    assert len(turns) == 2 and all(t.finished for t in turns)
    assert turns[0].prompt.startswith("/orchestrator create TODO app")
    assert turns[1].prompt.startswith("Thanks!")
    # the subagents ran Bash/Write/Edit; the main chain only Glob, TodoWrite and Task
    assert {a.name for a in turns[0].actions} == {"Glob", "TodoWrite", "Task"}
    assert turns[0].todos and all(set(t) == {"content", "status"} for t in turns[0].todos)


@needs_corpus
def test_subagent_files_yield_nothing_and_are_not_discovered(tmp_path):
    sub = next(OMARCHY.glob("*/subagents/agent-*.jsonl"))
    assert list(claude_code.read_turns(sub, now=0)) == []
    found = claude_code.discover({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(CLAUDE / "omarchy-backup")})
    assert sorted(p.name for p in found) == [
        "44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl",
        "8c880a68-969b-4b92-8733-a4927179d072.jsonl",
    ]


def _line(**fields) -> str:
    base = {"sessionId": "s-1", "cwd": "/work/app", "userType": "external", "isSidechain": False}
    base.update(fields)
    return json.dumps(base)


def _user(uuid: str, content, ts: str, version: str = "2.0.1", **extra) -> str:
    return _line(
        type="user", uuid=uuid, timestamp=ts, version=version, message={"role": "user", "content": content}, **extra
    )


def _assistant(uuid: str, mid: str, blocks: list, ts: str, version: str = "2.0.1", stop=None) -> str:
    msg = {"id": mid, "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks, "stop_reason": stop}
    return _line(type="assistant", uuid=uuid, timestamp=ts, version=version, message=msg)


def test_compaction_meta_commands_version_change_and_split_messages(tmp_path):
    lines = [
        _user("u1", "Refactor the parser", "2026-01-01T10:00:00Z"),
        _assistant("a1", "m1", [{"type": "text", "text": "Reading it."}], "2026-01-01T10:00:01Z"),
        _assistant(
            "a2",
            "m1",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}],
            "2026-01-01T10:00:02Z",
        ),
        _user(
            "u2",
            [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "Exit code 1\nFAILED"}],
            "2026-01-01T10:00:03Z",
        ),
        # compaction mid-turn: boundary plus a summary user line, neither is a prompt
        _line(type="system", subtype="compact_boundary", uuid="c1", parentUuid=None, timestamp="2026-01-01T10:00:04Z"),
        _user(
            "u3",
            "This session is being continued from a previous conversation…",
            "2026-01-01T10:00:05Z",
            isCompactSummary=True,
        ),
        # the CLI was updated and the session resumed: version changes mid-file
        _assistant(
            "a3",
            "m2",
            [{"type": "text", "text": "Fixed the failing test."}],
            "2026-01-01T10:00:06Z",
            version="2.1.5",
            stop="end_turn",
        ),
        _line(type="system", subtype="turn_duration", uuid="d1", timestamp="2026-01-01T10:00:07Z", durationMs=7000),
        # a local command: caveat (meta), command line, local stdout -> no turn
        _user(
            "u4",
            "Caveat: The messages below were generated by the user while running local commands.",
            "2026-01-01T10:01:00Z",
            version="2.1.5",
            isMeta=True,
        ),
        _user(
            "u5",
            "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
            "2026-01-01T10:01:01Z",
            version="2.1.5",
        ),
        _user(
            "u6",
            "<local-command-stdout>Set model to opus</local-command-stdout>",
            "2026-01-01T10:01:02Z",
            version="2.1.5",
        ),
        _user("u7", "<bash-input>ls</bash-input>", "2026-01-01T10:01:03Z", version="2.1.5"),
        # a model-invoking slash command is a prompt
        _user(
            "u8",
            "<command-message>review is running…</command-message>\n<command-name>/review</"
            "command-name>\n<command-args>src/parser.py</command-args>",
            "2026-01-01T10:02:00Z",
            version="2.1.5",
        ),
        _user(
            "u9",
            [{"type": "text", "text": "Review the file and list problems."}],
            "2026-01-01T10:02:00Z",
            version="2.1.5",
            isMeta=True,
        ),
        _assistant("a4", "m3", [{"type": "text", "text": "Two problems."}], "2026-01-01T10:02:05Z", version="2.1.5"),
        _assistant(
            "a5",
            "m3",
            [{"type": "text", "text": "Both are in the tokenizer."}],
            "2026-01-01T10:02:05Z",
            version="2.1.5",
            stop="end_turn",
        ),
        _user(
            "u10", [{"type": "text", "text": "[Request interrupted by user]"}], "2026-01-01T10:02:09Z", version="2.1.5"
        ),
    ]
    path = tmp_path / "s-1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    turns = list(claude_code.read_turns(path, now=os.stat(path).st_mtime + 10))
    assert [t.prompt for t in turns] == ["Refactor the parser", "/review src/parser.py"]
    first, second = turns
    assert first.finish_reason == "turn_duration" and first.answer == "Fixed the failing test."
    assert first.actions[0].exit_code == 1 and first.actions[0].is_error
    assert first.actions[0].input_summary == "pytest -q"
    assert second.finish_reason == "interrupt" and second.interrupted
    assert second.answer == "Two problems.\n\nBoth are in the tokenizer."  # one message split over two lines
    assert first.turn_id == "u1" and second.turn_id == "u8"


def test_registry_exposes_claude_reader():
    assert READERS["claude-code"] is claude_code
