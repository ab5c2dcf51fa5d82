"""config.yml plus the environment; read on every use so a change needs no restart.

``load()`` re-reads the file whenever its modification time or size changed
(a stat per call, a parse only after an edit). A broken file raises
``ConfigError`` with the line and what to do; hooks call ``load(strict=False)``
instead, which logs the problem once per edit and carries on with the defaults.
"""

from __future__ import annotations

import copy
import os
import threading
from pathlib import Path
from typing import Any

from automem.home import Home
from automem.record import record

HARNESSES = ("claude-code", "codex", "pi", "omp", "antigravity")

DEFAULTS: dict[str, Any] = {
    "memory": {
        # master switch: no autobank pass runs while this is false
        "auto_bank": True,
        # session-end extraction of lessons (still needs consent)
        "auto_memorize": True,
        # the capture hooks write signals to the spool
        "capture": True,
    },
    "autobank": {"harnesses": list(HARNESSES)},
    "llm": {"model": "off", "timeout_seconds": 20},
    "brief": {"budget_tokens": 1500},
    "recall": {"per_prompt": 3},
    "retention": {"journal_days": 7, "spool_days": 7, "candidate_days": 30},
}

DEFAULT_CONFIG_TEXT = """\
# automem configuration. Read on every use: edits take effect at once.
memory:
  auto_bank: true        # master switch for banking finished turns as Markdown
  auto_memorize: true    # session-end extraction of lessons (asks for consent first)
  capture: true          # hooks record errors, tool intents and your feedback in the spool
autobank:
  harnesses: [claude-code, codex, pi, omp, antigravity]
llm:
  model: "off"           # off | claude-haiku-4-5-... | ollama:<model>; AUTOMEM_MODEL overrides
  timeout_seconds: 20
brief:
  budget_tokens: 1500    # SessionStart brief; never over 10,000 characters
recall:
  per_prompt: 3          # memories added to a prompt when they clear the relevance bar
retention:
  journal_days: 7
  spool_days: 7
  candidate_days: 30     # an automatic memory not confirmed (promoted) within this many days expires to trash
"""


class ConfigError(ValueError):
    """config.yml cannot be used; the message says where and how to fix it."""


@record(frozen=True)
class Config:
    """config.yaml as read, with dotted lookups."""

    data: dict[str, Any]
    path: Path

    def get(self, dotted: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    @property
    def auto_bank(self) -> bool:
        return bool(self.get("memory.auto_bank"))

    @property
    def auto_memorize(self) -> bool:
        return bool(self.get("memory.auto_memorize"))

    @property
    def capture(self) -> bool:
        return bool(self.get("memory.capture"))

    @property
    def autobank_harnesses(self) -> list[str]:
        return list(self.get("autobank.harnesses") or [])

    @property
    def model(self) -> str:
        """AUTOMEM_MODEL wins over the file; ``off`` when neither names a model."""
        env = os.environ.get("AUTOMEM_MODEL")
        value = env if env is not None and env.strip() else self.get("llm.model")
        value = str(value if value not in (None, False) else "off").strip()
        return value or "off"

    @property
    def brief_budget_tokens(self) -> int:
        return int(self.get("brief.budget_tokens"))

    @property
    def journal_days(self) -> int:
        return int(self.get("retention.journal_days"))

    @property
    def spool_days(self) -> int:
        return int(self.get("retention.spool_days"))

    @property
    def candidate_days(self) -> int:
        return int(self.get("retention.candidate_days", 30))


_cache_lock = threading.Lock()
_cache: dict[str, tuple[tuple[int, int], Config]] = {}


def load(home: Home | None = None, *, strict: bool = True) -> Config:
    """The current configuration: defaults overlaid with config.yml.

    strict=False (hooks): a broken file gives the defaults and one log line.
    """
    home = home or Home.current()
    path = home.config_file
    try:
        st = path.stat()
    except FileNotFoundError:
        return Config(copy.deepcopy(DEFAULTS), path)
    except OSError as exc:
        return _fallback(path, f"cannot read {path}: {exc}", strict)
    key = (st.st_mtime_ns, st.st_size)
    with _cache_lock:
        hit = _cache.get(str(path))
        if hit and hit[0] == key:
            return hit[1]
    try:
        config = Config(_parse(path), path)
    except ConfigError as exc:
        return _fallback(path, str(exc), strict)
    with _cache_lock:
        _cache[str(path)] = (key, config)
    return config


def _fallback(path: Path, message: str, strict: bool) -> Config:
    if strict:
        raise ConfigError(message)
    from automem.log import log_error

    log_error("config", message)
    return Config(copy.deepcopy(DEFAULTS), path)


def _parse(path: Path, text: str | None = None) -> dict[str, Any]:
    """The settings of config.yml merged over the defaults (``text``: what the file would hold, not read)."""
    import yaml  # not on the capture path: only non-capture events and the CLI load config

    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{path} is not UTF-8 text ({exc}); save it as UTF-8 or delete it to get the defaults"
            ) from None
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{path} is not valid YAML{where}: {problem}. "
            "Fix that line, or run `automem config reset` to write the defaults."
        ) from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path} must be a mapping of sections (memory:, llm:, ...), not {type(loaded).__name__}")
    merged = copy.deepcopy(DEFAULTS)
    _validate_and_merge(merged, loaded, path, prefix="")
    return merged


def _validate_and_merge(base: dict[str, Any], loaded: dict[str, Any], path: Path, prefix: str) -> None:
    for key, value in loaded.items():
        dotted = f"{prefix}{key}"
        if key not in base:
            # unknown keys are kept (a newer automem may know them) but never trusted
            base[key] = value
            continue
        expected = base[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: `{dotted}` must be a section with keys {sorted(expected)}, got {value!r}")
            _validate_and_merge(expected, value, path, prefix=dotted + ".")
        elif isinstance(expected, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{path}: `{dotted}` must be true or false, got {value!r}")
            base[key] = value
        elif isinstance(expected, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{path}: `{dotted}` must be a whole number >= 0, got {value!r}")
            base[key] = value
        elif isinstance(expected, list):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{path}: `{dotted}` must be a list of names, got {value!r}")
            if dotted == "autobank.harnesses":
                unknown = [v for v in value if v not in HARNESSES]
                if unknown:
                    raise ConfigError(
                        f"{path}: `{dotted}` names unknown harness(es) {unknown}; known: {list(HARNESSES)}"
                    )
            base[key] = list(value)
        else:
            if value is False:  # YAML reads a bare `off` as false
                value = "off"
            if not isinstance(value, (str, int, float)):
                raise ConfigError(f"{path}: `{dotted}` must be a single value, got {value!r}")
            base[key] = str(value)


def write_default(home: Home | None = None, *, overwrite: bool = False) -> Path:
    """Write the commented default config.yml (never over the user's file unless asked)."""
    home = (home or Home.current()).ensure()
    path = home.config_file
    if path.exists() and not overwrite:
        return path
    from automem.store import write_file

    write_file(path, DEFAULT_CONFIG_TEXT, home=home)
    return path


def set_value(dotted: str, value: Any, home: Home | None = None) -> Path:
    """Change one setting in config.yml, keeping the user's comments where the line can be found.

    The line ``<key>: ...`` under its section is rewritten in place; when the
    file has no such line (or no file exists) the key is added to its section.
    The result is validated before it replaces the file.
    """
    import re

    import yaml

    home = (home or Home.current()).ensure()
    path = home.config_file
    if not path.exists():
        write_default(home)
    text = path.read_text(encoding="utf-8")
    section, _, key = dotted.rpartition(".")
    rendered = yaml.safe_dump(value, default_flow_style=True).strip()
    if rendered.endswith("\n..."):
        rendered = rendered[:-4].strip()
    lines = text.splitlines()
    in_section = not section
    done = False
    for i, line in enumerate(lines):
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        if section and indent == 0:
            in_section = stripped == f"{section}:"
            continue
        match = re.match(rf"^(\s*){re.escape(key)}:\s*([^#]*?)(\s*#.*)?$", line)
        if in_section and match and (indent > 0 or not section):
            lines[i] = f"{match.group(1)}{key}: {rendered}{match.group(3) or ''}"
            done = True
            break
    if not done:
        if section and any(row.rstrip() == f"{section}:" for row in lines):
            at = next(i for i, row in enumerate(lines) if row.rstrip() == f"{section}:")
            lines.insert(at + 1, f"  {key}: {rendered}")
        elif section:
            lines += [f"{section}:", f"  {key}: {rendered}"]
        else:
            lines.append(f"{key}: {rendered}")
    new_text = "\n".join(lines) + "\n"
    from automem.store import write_file

    probe = Config(_parse(path, new_text), path)
    if probe.get(dotted) != value:
        raise ConfigError(f"could not set `{dotted}` in {path}; edit the file by hand")
    write_file(path, new_text, home=home)
    return path
