"""The clients' install step skips, saying why, when npm is absent, and reuses its cache otherwise."""

from __future__ import annotations

import pytest

from .e2e_support import CLIENTS, _installed_version, cache_dir, install_clients


def test_without_npm_the_suite_skips_with_a_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no npm, no node
    with pytest.raises(pytest.skip.Exception, match="npm/node are not installed"):
        install_clients()


def test_the_cache_holds_the_pinned_versions(npm_clients):
    prefix = cache_dir() / "npm"
    assert {name: _installed_version(prefix, pkg) for name, (pkg, _) in CLIENTS.items()} == {
        name: version for name, (_, version) in CLIENTS.items()
    }
    assert all(path.exists() for path in npm_clients.values())
