"""Machine folders out of what a lesson says: a project folder is ./ however the transcript spelt it."""

from __future__ import annotations

from automem.extract.usable import generalize


def test_a_windows_project_folder_without_its_drive_is_still_the_project():
    root = "c:\\AI\\shop-2026"
    text = "Applied to: /AI/shop-2026/docs/screen.md, c:\\AI\\shop-2026\\CLAUDE.md, /AI/other/x.md"
    assert generalize(text, root) == "Applied to: ./docs/screen.md, ./CLAUDE.md, /AI/other/x.md"
