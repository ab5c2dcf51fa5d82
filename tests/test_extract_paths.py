"""Machine folders out of what a lesson says: a project folder is ./ however the transcript spelt it."""

from __future__ import annotations

from automem.extract.usable import generalize


def test_a_windows_project_folder_without_its_drive_is_still_the_project():
    root = "c:\\AI\\shop-2026"
    text = "Applied to: /AI/shop-2026/docs/screen.md, c:\\AI\\shop-2026\\CLAUDE.md, /AI/other/x.md"
    assert generalize(text, root) == "Applied to: ./docs/screen.md, ./CLAUDE.md, /AI/other/x.md"


def test_a_record_file_of_this_machine_outside_the_project_is_no_lesson():
    from automem.extract.rules import Session, said
    from automem.extract.steps import Step

    def kept(text: str) -> list:
        return said.doc_file_rule(Session([Step("prompt", text=text)], root="/home/ann/shop"))

    for text in (
        "save the notes in ~/notes/todo.md",
        "now write the migration plan in C:\\Users\\Ann\\Documents\\plan.md with checkboxes",
        "keep the plan in /Users/ann/Desktop/plan.md",
    ):
        assert kept(text) == [], text
    [plan] = kept("write the plan in docs/plan.md")
    assert plan.summary == "The plan is kept in docs/plan.md; keep it up to date"
    assert kept("keep the plan in /home/ann/shop/docs/plan.md")


def test_a_record_file_inside_the_project_stays_however_its_path_is_spelt():
    from automem.extract.rules import Session, said
    from automem.extract.steps import Step

    for root, text in (
        ("C:\\work\\shop", "From now on keep the plan in docs\\plan.md"),
        ("C:\\work\\shop", "From now on keep the plan in .\\docs\\plan.md"),
        ("/home/ann/shop", "From now on keep the plan in ~/shop/docs/plan.md"),
        ("/home/ann/shop", "From now on keep the plan in $HOME/shop/docs/plan.md"),
    ):
        assert said.doc_file_rule(Session([Step("prompt", text=text)], root=root)), text
    outside = "From now on keep the plan in ~/notes/plan.md"
    assert said.doc_file_rule(Session([Step("prompt", text=outside)], root="/home/ann/shop")) == []
