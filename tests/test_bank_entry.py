"""Bank entry rendering: the bank's Markdown format, its caps, and names that are a pure function of the turn."""

from __future__ import annotations

from automem.bank.entry import PROMPT_CAP, RESULT_CAP, render
from automem.bank.project_files import INDEX_END, INDEX_START, rebuild_main_md
from automem.bank.state import write_state
from automem.harness.model import ToolAction, Turn
from automem.home import Home
from automem.markdown import load


def make_turn(**fields) -> Turn:
    base = dict(
        harness="claude-code",
        session_id="s-1",
        turn_id="u-1",
        prompt="Fix the authentication bug\nmore",
        answer="Done.",
        started_at="2026-08-28T10:29:00Z",
        ended_at="2026-08-28T10:30:00.123456Z",
        cwd="/Users/me/Workspace/myapp",
        finished=True,
        finish_reason="turn_duration",
        actions=[
            ToolAction(name="Bash", input={"command": "npm test"}),
            ToolAction(name="Write", input_summary="/src/a.ts"),
        ],
    )
    base.update(fields)
    return Turn(**base)


def test_entry_has_the_seed_format():
    entry = render(make_turn())
    post, content = load(entry.text)
    assert entry.file_name.startswith("2026-08-28T10-30-00-123Z--fix-the-authentication-bug-")
    assert post["id"] == "2026-08-28T10-30-00-123Z" and post["ts"] == "2026-08-28T10:30:00.123Z"
    assert post["title"] == "Fix the authentication bug"
    assert post["tags"] == ["bash", "write"]
    assert post["turn_key"] == "claude-code:s-1:u-1" and post["source"] == "autobank:claude-code"
    assert '- bash: {"command":"npm test"}' in content and "- write: /src/a.ts" in content
    assert render(make_turn()) == entry, "same turn, same bytes"
    assert render(make_turn(turn_id="u-2")).file_name != entry.file_name


def test_caps_and_byte_limit():
    entry = render(make_turn(prompt="p" * 10_000, answer="r" * 50_000))
    prompt = entry.text.split("## Prompt\n\n", 1)[1].split("\n\n## Actions", 1)[0]
    result = entry.text.split("## Result\n\n", 1)[1].rstrip("\n")
    assert len(prompt) == PROMPT_CAP and prompt.endswith("[truncated]")
    assert len(result) == RESULT_CAP and result.endswith("[truncated]")
    huge = render(make_turn(actions=[ToolAction(name="Edit", input="x" * 100_000)] * 500))
    assert len(huge.text.encode()) < 1_000_000


def test_antigravity_is_dated_by_its_first_prompt():
    entry = render(make_turn(harness="antigravity", started_at="2026-01-01T00:00:00Z"))
    assert entry.file_name.startswith("2026-01-01T00-00-00-000Z--")


def test_main_md_markers_added_to_a_users_file(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path))
    project = Home.current().ensure().project_for_cwd("/work/app")
    project.dir.mkdir(parents=True)
    project.main_md.write_text("My notes, no markers\n", encoding="utf-8")
    written = {}
    entry = render(make_turn())
    (project.bank_dir).mkdir()
    (project.bank_dir / entry.file_name).write_text(entry.text, encoding="utf-8")
    assert rebuild_main_md(project, lambda p, t: written.setdefault(p, t))
    text = written[project.main_md]
    assert text.startswith("My notes, no markers\n")
    block = text.split(INDEX_START, 1)[1].split(INDEX_END, 1)[0]
    assert "Fix the authentication bug (bank/" in block


def test_state_file_todos_plan_and_checkpoints(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path))
    project = Home.current().ensure().project_for_cwd("/work/app")
    store = {}

    def write(path, text):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        store[path] = store.get(path, 0) + 1

    todos = [
        {"content": "write tests", "status": "completed"},
        {"content": "ship", "status": "in_progress"},
        {"content": "party", "status": "pending"},
    ]
    for i in range(12):
        write_state(
            project, make_turn(turn_id=f"u{i}", ended_at=f"2026-08-28T10:{i:02d}:00Z", todos=todos, plan="Do it"), write
        )
    text = project.state_file("claude-code", "s-1").read_text()
    assert "- [x] write tests" in text and "- [~] ship" in text and "- [ ] party" in text
    assert "## Plan\n\nDo it" in text
    checkpoints = text.split("## Checkpoints\n\n", 1)[1].strip().splitlines()
    assert len(checkpoints) == 10 and checkpoints[-1].startswith("- 2026-08-28T10:11:00")


def test_title_skips_template_headings():
    from automem.bank.entry import title_of

    assert title_of(make_turn(prompt="## User Input\n\n```text\nAdd the login page\n```\n")) == "Add the login page"
    assert title_of(make_turn(prompt="## User Input\n\nAdd the login page\n")) == "Add the login page"
    assert title_of(make_turn(prompt="# Only a heading\n")) == "Only a heading"


AWS_KEY = "AKIA" + "J7Q2M4X8R5T1W3Y6"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "MIIEowIBAAKCAQEA3x9vQ2pL8mK4rT7wY1zN5bH6cJ0dF3gS8aE2uV7iO9pX4qW1\n" * 6
    + ("-----END RSA PRIVATE KEY-----")
)


def test_every_part_taken_from_the_turn_is_redacted_before_it_is_cut_or_escaped():
    """The fields go through the full pass together (one scan), and the entry is written as assembled: each part
    a turn brings must come out redacted, wherever it sits."""
    turn = make_turn(
        prompt=f"deploy with {AWS_KEY} please",
        answer=f"used {AWS_KEY}",
        cwd=f"/work/{AWS_KEY}",
        actions=[
            ToolAction(name="Write", input={"path": "id_rsa", "content": PEM}),  # newlines become \n in JSON
            ToolAction(name="Bash", input={"env": {AWS_KEY: "x"}}),  # a token as a key
            ToolAction(name="Bash", input=f"echo \x1b[31m{AWS_KEY[:8]}\x1b[0m{AWS_KEY[8:]}"),  # an escape inside it
            ToolAction(name="Read", input={"file": "a" * 40_000 + AWS_KEY}),  # past the cap: never shown
        ],
        rejections=[f"no, use {AWS_KEY}"],
    )
    text = render(turn).text
    assert AWS_KEY not in text and AWS_KEY[4:] not in text
    assert "MIIEowIBAAKCAQEA" not in text and "[REDACTED:private-key]" in text
    assert "\x1b" not in text
    assert text.count("[REDACTED:") >= 6


GH_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_a_value_is_redacted_with_its_key_and_a_shown_part_is_never_past_the_redacted_head():
    """A password is known by its key; a title line, a stripped answer or a collapsed rejection can come from deep
    in a long text: none of them may show what the pass did not see."""
    turn = make_turn(
        prompt="<system-reminder>" + "x " * 9_000 + "</system-reminder>\nMy token is " + GH_TOKEN,
        answer="\n" * 20_000 + GH_TOKEN,
        rejections=[" " * 20_000 + GH_TOKEN],
        actions=[
            ToolAction(name="Bash", input={"password": "Sunshine2024!x", "DB_PASSWORD": "correcthorsebattery"}),
            ToolAction(name="login", input={"user": "app", "password": 'Zq9x": "Wv3kLm7pR2tY8', "pwd": "ab\tCd3fGh9!"}),
        ],
    )
    entry = render(turn)
    for part in (GH_TOKEN[4:12], "Sunshine2024", "correcthorsebattery", "Wv3kLm7pR2tY8", "Cd3fGh9"):
        assert part not in entry.text and part.lower() not in entry.file_name
    untitled = render(make_turn(prompt="", title=f"set AWS key {AWS_KEY}"))
    assert AWS_KEY not in untitled.text and AWS_KEY.lower() not in untitled.file_name


def test_a_flag_and_its_value_in_a_list_are_read_together():
    """An argv (Codex's command arrays, an MCP tool's args) or a key's list of values: the pass sees the items as
    one line, so a value known by the flag or key before it is redacted; nothing else in the list is touched."""
    actions = [
        ToolAction(name="exec", input={"command": ["docker", "login", "-p", "Sunshine2024!x", "registry.local"]}),
        ToolAction(name="exec", input={"command": ["curl", "-u", "admin:S3cr3tPassw0rd", "https://x.test"]}),
        ToolAction(name="tool", input={"password": ["correcthorse2024battery"]}),
        ToolAction(name="exec", input={"command": ["bash", "-lc", "git status"]}),
    ]
    text = render(make_turn(actions=actions)).text
    for secret in ("Sunshine2024", "S3cr3tPassw0rd", "correcthorse2024battery"):
        assert secret not in text
    assert '"docker","login","-p","[REDACTED:' in text and '"registry.local"' in text
    assert '{"command":["bash","-lc","git status"]}' in text
