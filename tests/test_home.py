"""Project identity: one slug per folder whoever reports it; the tree layout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from automem.home import Home, find_project_root, normalize_path, project_slug


@pytest.mark.parametrize(
    "spellings",
    [
        # Claude Code, Codex, pi and shells spell one Windows folder many ways
        [
            r"C:\Users\Loganf\Documents\IDAHO-VAULT",
            "c:/Users/loganf/Documents/IDAHO-VAULT",
            "C:/Users/Loganf/Documents/IDAHO-VAULT/",
            r"\\?\C:\Users\Loganf\Documents\IDAHO-VAULT",
            r"c:\users\loganf\documents\idaho-vault\.",
            "file:///C:/Users/Loganf/Documents/IDAHO-VAULT",
            r"C:\Users\Loganf\Documents\IDAHO-VAULT\sub\..",
        ],
        ["/home/u/my.repo", "/home/u/my.repo/", "/home/u//my.repo", "/home/u/./my.repo", "/home/u/x/../my.repo"],
    ],
)
def test_same_folder_same_slug(spellings):
    slugs = {project_slug(s) for s in spellings}
    assert len(slugs) == 1, slugs


def test_slug_is_readable_and_distinct():
    a = project_slug("/home/u/work/automem")
    assert a.startswith("automem-") and len(a) == len("automem-") + 8
    # the Claude Code slug function is lossy (/a/b-c == /a/b/c); ours is not
    assert project_slug("/a/b-c") != project_slug("/a/b/c")
    # POSIX paths are case-sensitive, Windows ones are not
    assert project_slug("/home/u/Repo") != project_slug("/home/u/repo")
    assert project_slug(r"C:\Repo") == project_slug(r"c:\repo")


def test_normalize_unc_and_root():
    assert normalize_path(r"\\Server\Share\Dir") == "//server/share/dir"
    assert normalize_path("C:\\") == "c:/"
    assert project_slug("/").startswith("root-")


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_project_root_is_git_toplevel(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    _git("init", "-q", cwd=repo)
    assert find_project_root(str(repo / "src" / "pkg")) == str(repo.resolve())
    outside = tmp_path / "plain"
    outside.mkdir()
    assert find_project_root(str(outside)) == str(outside.resolve())


def test_worktree_maps_to_main_checkout(tmp_path: Path):
    repo = tmp_path / "main"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x", cwd=repo)
    _git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    assert find_project_root(str(tmp_path / "wt")) == str(repo.resolve())


def test_project_for_cwd_and_layout(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "home"))
    home = Home.current().ensure()
    assert home.root == tmp_path / "home"
    assert (home.root / "spool").is_dir() and (home.root / "log").is_dir()
    project = home.project_for_cwd(str(tmp_path))
    assert project.dir == home.root / "projects" / project.slug
    assert project.memories_dir.name == "memories" and project.bank_dir.name == "bank"
    assert project.state_file("codex", "../x").parent == project.state_dir
    assert home.project_for_cwd("").slug == "_global"
    with pytest.raises(ValueError):
        home.project_dir("../etc")


def test_windows_cwd_read_on_posix_is_one_project_wherever_automem_runs(tmp_path, monkeypatch):
    """A transcript from the Windows side (WSL, Antigravity) must not resolve against this process's folder."""
    spellings = [r"C:\Users\me\proj", "c:/users/me/proj", r"\\?\C:\Users\me\proj"]
    slugs = set()
    for folder in (tmp_path, Path("/")):
        monkeypatch.chdir(folder)
        slugs |= {project_slug(find_project_root(s)) for s in spellings}
    assert slugs == {project_slug(r"C:\Users\me\proj")}


def test_a_relative_cwd_names_no_project(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEM_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    home = Home.current()
    assert home.project_for_cwd(".").slug == "_global"
    assert home.project_for_cwd("src/app").slug == "_global"
    assert home.project_for_cwd(r"C:\Users\me\proj").slug == project_slug(r"C:\Users\me\proj")


def test_a_worktree_of_another_machine_belongs_to_its_repository():
    """A Windows worktree path read on POSIX (and a POSIX one with no checkout here) maps by the agents' layout."""
    from automem.home import find_project_root, project_slug

    main = project_slug(find_project_root("C:\\Users\\me\\app"))
    for path in (
        "C:\\Users\\me\\app\\.claude\\worktrees\\fix-login",
        "c:/users/me/app/.worktrees/x/src",
        "C:\\Users\\me\\app\\.codex\\worktrees\\t1",
    ):
        assert project_slug(find_project_root(path)) == main, path
    assert project_slug(find_project_root("C:\\code\\worktrees-demo")) != main
    assert find_project_root("/nonexistent/ana/shop/.claude/worktrees/feat") == "/nonexistent/ana/shop"
