"""End-to-end fixtures: the pinned clients from npm (cached), a throwaway user (see e2e_support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e_support import install_clients


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)  # the first one installs the pinned clients from npm (~40 s uncached)


@pytest.fixture(scope="session")
def npm_clients() -> dict[str, Path]:
    """{"claude": path, "codex": path, "pi": path, "omp": path, "bun": path}: the pinned clients' executables
    (installed once, cached)."""
    return install_clients()
