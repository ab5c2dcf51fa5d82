"""End-to-end fixtures: the real clients from npm (pinned, cached), a throwaway HOME wired by install.py.

The clients are installed once into a cache folder (``$AUTOMEM_E2E_CACHE``, default
``~/.cache/automem-e2e``) with ``npm install --prefix`` and reused by later runs. The suite
skips only when npm is absent or the registry cannot be reached; any other install
failure fails the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
AUTOMEM = VENV_BIN / "automem"

# the versions the suite is pinned to (README: "Tested clients")
CLIENTS = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0"),
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1"),
    # omp publishes all its @oh-my-pi/* packages at one version; 18.2.3 is the newest whose whole set the registry
    # holds (18.3.4 needs @oh-my-pi/pi-natives@18.3.4 and ten more at 18.3.4, none of them in it)
    "omp": ("@oh-my-pi/pi-coding-agent", "18.2.3"),
    "bun": ("bun", "1.4.5"),  # the runtime omp's cli.js runs on (#!/usr/bin/env bun; omp asks for bun >= 1.3.14)
}
_NETWORK = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "ECONNREFUSED",
    "ECONNRESET",
    "ENETUNREACH",
    "network",
    "getaddrinfo",
    "fetch failed",
    "ERR_SOCKET_TIMEOUT",
)


def cache_dir() -> Path:
    return Path(os.path.expanduser(os.environ.get("AUTOMEM_E2E_CACHE") or "~/.cache/automem-e2e"))


def _installed_version(prefix: Path, package: str) -> str | None:
    try:
        return json.loads((prefix / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def install_clients() -> dict[str, Path]:
    """{"claude": path, "codex": path, "pi": path, "omp": path, "bun": path}: the pinned clients' executables."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("e2e: npm/node are not installed; install Node.js (>= 20) to drive the real clients")
    prefix = cache_dir() / "npm"
    prefix.mkdir(parents=True, exist_ok=True)
    wanted = [f"{pkg}@{ver}" for pkg, ver in CLIENTS.values() if _installed_version(prefix, pkg) != ver]
    if wanted:  # saved to the cache's package.json, so a later install of one client never prunes the others
        out = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--save-exact",
                "--loglevel=error",
                *wanted,
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if out.returncode != 0:
            text = out.stdout + out.stderr
            if any(word in text for word in _NETWORK):
                pytest.skip(
                    f"e2e: npm could not reach the registry to install {' '.join(wanted)}: "
                    f"{text.strip().splitlines()[-1] if text.strip() else ''}"
                )
            pytest.fail(f"npm install {' '.join(wanted)} failed:\n{text[-3000:]}")
    bins = prefix / "node_modules" / ".bin"
    return {name: bins / name for name in CLIENTS}


def wait_for(predicate, what: str, deadline_s: float = 90.0, every: float = 0.2):
    """Poll until predicate() is truthy (a detached worker on a busy 2-core machine); fail with ``what``."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(every)


class World:
    """A throwaway user: HOME, AUTOMEM_HOME, a git project, automem installed by install.py."""

    def __init__(self, root: Path):
        self.root = root
        self.home = root / "home"
        self.automem_home = self.home / ".automem"
        self.project = root / "project"
        self.home.mkdir()
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        (self.project / "check.py").write_text(
            "import os, sys\n"
            "if not os.environ.get('APP_MODE'):\n"
            "    sys.exit('error: APP_MODE is not set; run with APP_MODE=test')\n"
            "print('check ok')\n"
        )
        self.extra_path: list[str] = []

    def env(self, **extra: str) -> dict[str, str]:
        path = [*self.extra_path, str(VENV_BIN), "/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "PATH": os.pathsep.join(path),
            "HOME": str(self.home),
            "AUTOMEM_HOME": str(self.automem_home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "AUTOMEM_MODEL": "off",
            "TMPDIR": str(self.root / "tmp"),
        }
        (self.root / "tmp").mkdir(exist_ok=True)
        env.update(extra)
        return env

    def install(self, **extra: str) -> str:
        out = subprocess.run(
            [sys.executable, str(REPO / "install.py"), "--no-venv", "--skip-pip", "--yes", "--no-demo"],
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        consent = subprocess.run(
            [str(AUTOMEM), "consent", "yes"], env=self.env(**extra), capture_output=True, text=True, timeout=60
        )
        assert consent.returncode == 0, consent.stderr
        return out.stdout

    def automem(self, *args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(AUTOMEM), *args], env=self.env(**extra), capture_output=True, text=True, cwd=self.project, timeout=120
        )

    # what automem wrote
    def spool(self, session_id: str | None = None) -> list[dict]:
        files = sorted((self.automem_home / "spool").glob(f"{session_id or '*'}.jsonl"))
        return [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]

    def projects(self) -> Path:
        return self.automem_home / "projects"

    def bank_entries(self) -> list[Path]:
        return sorted(self.projects().glob("*/bank/*.md"))

    def memories(self) -> list[Path]:
        return sorted(self.projects().glob("*/memories/*.md"))

    def keep(self, label: str, files: list[Path]) -> None:
        """With AUTOMEM_E2E_KEEP=<dir>, copy what the client wrote there (to refresh tests/data/ fixtures)."""
        target = os.environ.get("AUTOMEM_E2E_KEEP")
        if not target:
            return
        folder = Path(target) / label
        folder.mkdir(parents=True, exist_ok=True)
        for path in files:
            shutil.copy2(path, folder / path.name)

    def log(self) -> str:
        path = self.automem_home / "log" / "automem.log"
        return path.read_text() if path.exists() else ""


def tool_results(body: dict) -> list[dict]:
    """Every tool_result block in an Anthropic request body."""
    return [
        b
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
