"""A command the agent gave when the user asked how to do something: whose it is (this project's or any), and
none when the next prompt says it did not work. Each case is a short hand-written session."""

from __future__ import annotations

from automem.extract.rules import Session, reports
from automem.extract.steps import steps_from_turns
from automem.harness.model import Turn


def _session(*pairs: tuple[str, str]) -> Session:
    turns = [
        Turn(harness="claude-code", session_id="s", turn_id=str(n), prompt=p, answer=a)
        for n, (p, a) in enumerate(pairs, 1)
    ]
    return Session(steps_from_turns(turns))


_RUN = "To run it, from the `web/` directory:\n```bash\nnpm run dev\n```\nThis starts the dev server on port 3000."


def test_running_this_projects_app_is_a_project_lesson():
    [cand] = reports.answered_question_rule(_session(("How do I run the app?", _RUN), ("thanks", "You're welcome.")))
    assert cand.scope == "project"
    listing = "List them with this:\n```bash\ndocker ps -a\n```\nIt shows stopped ones too, with their status."
    [tool] = reports.answered_question_rule(_session(("how do I see every container, even stopped ones", listing)))
    assert tool.scope == "global"


def test_an_answer_the_next_prompt_says_failed_is_no_lesson():
    failed = "'next' is not recognized as an internal or external command,\noperable program or batch file."
    assert reports.answered_question_rule(_session(("How do I run the app?", _RUN), (failed, "Install first."))) == []
    assert (
        reports.answered_question_rule(_session(("How do I run the app?", _RUN), ("it says command not found", "")))
        == []
    )


def test_a_login_line_or_a_cd_is_no_command_to_remember():
    login = "Use the demo account:\n```\nusername: admin\npassword: hunter2\n```\nIt works once the API runs."
    assert reports.answered_question_rule(_session(("How do I login?", login))) == []
    cd = "It is part of the dev server. Start it:\n```bash\ncd web\nnpm run dev\n```\nThe mock API is built in."
    assert reports.answered_question_rule(_session(("How do I start the mock API", cd))) == []


def test_a_new_question_in_the_next_prompt_says_nothing_of_the_answer():
    """Only the head of the next prompt tells whether the answer worked: a later error there is another question."""
    lsof = "Run:\n```bash\nlsof -i :3000\n```\nIt lists the process holding the port."
    for following in (
        "great. now how do I fix the CORS error on login?",
        "thanks! the deploy job failed on CI yesterday, unrelated: where is it configured?",
    ):
        session = _session(("how do I see what is using port 3000", lsof), (following, "Let me look."))
        assert reports.answered_question_rule(session), following
    for following in ("it doesn't work", "error: lsof: command not found", "that failed"):
        session = _session(("how do I see what is using port 3000", lsof), (following, "Try ss."))
        assert reports.answered_question_rule(session) == [], following
