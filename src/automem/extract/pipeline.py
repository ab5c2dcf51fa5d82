"""Session-end auto-memorize: signals -> candidates -> redact -> caps -> dedupe -> classify -> store.

``extract(...)`` is what the detached worker, ``automem extract`` and the demo all run. It never
runs without consent, never stores a secret (every field goes through the full redaction pass
before it is capped, and the store redacts again on write), never rewrites a memory the user
wrote, and is idempotent: a second run over the same session stores and reinforces nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from automem import regex_cache
from automem.digest import sha256_hex
from automem.extract.dedupe import Deduper
from automem.extract.rules import Session, find_candidates
from automem.extract.rules.errors import error_clusters
from automem.extract.steps import Step, steps_from_spool, steps_from_turns
from automem.home import GLOBAL_PROJECT, Home, Project
from automem.isotime import now_iso
from automem.record import field, record
from automem.schema import EXPIRED, INSTRUCTION, MODEL, Candidate
from automem.store import memory_lock
from automem.store.memories import Memory, list_memories, parse, reinforce, save, save_status


@record
class Result:
    """What one extraction did: the memories it stored or reinforced, or why it did not run."""

    stored: list[Memory] = field(default_factory=list)
    reinforced: list[Memory] = field(default_factory=list)
    retired: list[Memory] = field(default_factory=list)  # earlier automatic rules a stored one took back
    skipped: str = ""  # why nothing ran (no consent, switched off, nothing to read)
    candidates: int = 0
    model: str = "off"

    def message(self) -> str:
        """The one line the user sees; empty when nothing new was stored."""
        if not self.stored:
            return ""
        names = ", ".join(_short(m.summary) for m in self.stored[:3])
        more = f" (+{len(self.stored) - 3} more)" if len(self.stored) > 3 else ""
        n = len(self.stored)
        gone = f"; retired: {', '.join(_short(m.summary) for m in self.retired[:3])}" if self.retired else ""
        return f"automem: stored {n} new memor{'y' if n == 1 else 'ies'}: {names}{more}{gone}"

    def as_dict(self) -> dict:
        return {
            "stored": [m.as_dict() for m in self.stored],
            "reinforced": [m.as_dict() for m in self.reinforced],
            "retired": [m.as_dict() for m in self.retired],
            "skipped": self.skipped,
            "candidates": self.candidates,
            "model": self.model,
            "message": self.message(),
        }


def _short(summary: str) -> str:
    """Short enough for one line of several, by dropping clauses rather than cutting words."""
    from automem.extract.phrasing import fit

    return fit(summary, 48)


def redact(text: str) -> str:
    from automem.store import redacted

    return redacted(text)


# --- state: what an earlier run already did for a session ----------------------------------------


def _state_dir(home: Home) -> Path:
    return home.extract_state_dir


def _session_state_path(home: Home, session_id: str) -> Path:
    from automem.capture.paths import safe_session_id

    return _state_dir(home) / f"{safe_session_id(session_id)}.json"


def _load_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_json(path: Path, data: dict, *, durable: bool = True) -> None:
    from automem.store import write_file

    write_file(path, json.dumps(data, ensure_ascii=False) + "\n", durable=durable)


def project_note_path(home: Home, slug: str) -> Path:
    """The last extraction's line for a project, shown once at the project's next SessionStart."""
    return home.project_note(slug)


def note_path(home: Home, session_id: str) -> Path:
    return home.session_note(session_id)


# --- the pass ---------------------------------------------------------------------------------


def extract(
    home: Home | None = None,
    *,
    session_id: str = "",
    transcript: str | Path | None = None,
    harness: str | None = None,
    cwd: str | None = None,
    last_message: str | None = None,
    require_consent: bool = True,
    use_model: bool = True,
) -> Result:
    home = home or Home.current()
    from automem import consent

    if require_consent and not consent.granted(home.root):
        consent.prune_spool(home.root, session_id or None)
        return Result(skipped="no consent (run `automem consent yes`)")
    from automem.config import load

    cfg = load(home, strict=False)
    if not cfg.auto_memorize:
        return Result(skipped="memory.auto_memorize is off")

    if not session_id and transcript and Path(transcript).is_file():
        session_id = _transcript_session(Path(transcript), harness)
    state_path = _session_state_path(home, session_id or _file_key(transcript))
    state = _load_json(state_path)
    steps, turns_cwd, harness, opened = _read_steps(home, session_id, transcript, harness, state)
    cwd = cwd or turns_cwd or ""
    project = home.project_for_cwd(cwd) if cwd else home.global_project()

    clusters_path = _state_dir(home) / f"clusters-{project.slug}.json"
    prior = Counter(_load_json(clusters_path).get("counts", {}))
    session_clusters = error_clusters(steps)
    prior_other = prior - Counter(state.get("clusters", {}))  # earlier sessions only
    found = find_candidates(Session(steps, root=project.root or cwd, prior_clusters=prior_other))
    model = cfg.model
    result = Result(candidates=len(found), model=model)
    if not found:
        with memory_lock(home):
            prior = Counter(_load_json(clusters_path).get("counts", {}))
            _finish_state(state_path, state, session_clusters, prior, clusters_path)
        return result

    if use_model and model and model != "off" and consent.granted(home.root):
        found = _with_model(found, steps, model, cfg, home, last_message)

    with memory_lock(home):  # sessions extracting at once: one reads, dedupes and saves at a time
        from automem.extract.family import parent_of, resolve

        family = resolve(
            _state_dir(home),
            session_id or _file_key(transcript),
            parent=parent_of(Path(transcript)) if transcript else "",
            fingerprint=opened,
        )
        result = _store(
            home,
            project,
            found,
            result,
            state,
            state_path,
            session_id,
            family,
            harness,
            session_clusters,
            clusters_path,
        )
    message = result.message()
    if message and session_id:
        _save_text(note_path(home, session_id), message)
    if message:
        _save_text(project_note_path(home, project.slug), message)  # a one-shot session sees it at the next start
    return result


def _store(
    home, project, found, result, state, state_path, session_id, family, harness, session_clusters, clusters_path
):
    """Dedupe against what is on disk now and save; the error-cluster counts are merged under the same lock.

    A duplicate from another session family reinforces the memory it repeats (and so promotes a
    candidate); one from the same family (a subagent, a resumed copy) changes nothing, except that
    stronger evidence found this time (a directive, a verified fix) promotes it.
    """
    prior = Counter(_load_json(clusters_path).get("counts", {}))  # re-read: another session may have added
    emitted = set(state.get("emitted", []))
    existing = _existing(project, home)
    deduper = Deduper([_compared(m) for m in existing])
    weights: dict[str, float] = {}  # path -> weight of the candidates stored by this pass
    for cand in found:
        key = _fingerprint(cand)
        if key in emitted:
            continue  # this run already saw it in an earlier pass over the same session
        emitted.add(key)
        if _contradicted(cand, existing):
            continue
        memory = _to_memory(cand, harness or "", session_id, family)
        match = deduper.duplicate_of(_compared(memory))
        if match is not None and (
            existing[match].status == EXPIRED or _opposed(memory.summary, existing[match].summary)
        ):
            match = None  # retired by this pass, or "Use pnpm, not npm": no repeat of "Use npm, not yarn"
        if match is not None:
            known = existing[match]
            if _forgotten(known):
                continue
            if known.path is not None and known.is_automatic and (known.family or known.session_id) != family:
                stronger = cand.promotion and known.state == "candidate" and cand.promotion != "reinforced"
                if stronger:
                    known.promote(
                        cand.promotion
                    )  # the user's instruction or a verified fix says more than "seen again"
                reinforce(known, now_iso())
                _index(known, home)
                result.reinforced.append(known)
            elif (
                known.path is not None
                and known.state == "candidate"
                and known.is_automatic
                and (cand.promotion or cand.weight >= weights.get(str(known.path), 0.0))
            ):
                # the same session said it again: the later, clearer statement wins (and promotes it if a rule now);
                # within one pass the candidates come strongest first, so a weaker one never replaces a stronger
                known.summary, known.content = memory.summary, memory.content
                known.why, known.how_to_apply, known.rule = memory.why, memory.how_to_apply, memory.rule
                if cand.promotion:
                    known.promote(cand.promotion)
                save_status(known)
                _index(known, home)
            elif known.path is not None and known.path.parent.name == "memories":
                _index(known, home)  # unchanged; a worker killed after writing it may not have indexed it
            continue
        target = home.global_project() if memory.scope == "global" else project
        save(target, memory)
        _index(memory, home)
        if cand.promotion == INSTRUCTION:
            result.retired += _retire_overturned(memory, existing, target, home)
        existing.append(memory)
        deduper.add(_compared(memory))
        result.stored.append(memory)
        weights[str(memory.path)] = cand.weight
    state["emitted"] = sorted(emitted)
    _finish_state(state_path, state, session_clusters, prior, clusters_path)
    return result


_LABELS = regex_cache.compile(
    r"(?m)^(?:The user said|The agent then|Just before|The user reported(?: \(\d+ times\))?|The agent"
    r"|Changed|What worked|Failing call|The failure|Rejected call|The user rejected [^:]{0,80} and said)"
    r"\s*:\s*"
)


_NOT_INSTALLED = regex_cache.compile(r"^([\w.+-]+) is not installed\b")


def _contradicted(cand: Candidate, existing: list[Memory]) -> bool:
    """A "not installed" lesson the user already contradicted in a memory ("Teams is installed as a pwa")."""
    missing = _NOT_INSTALLED.match(cand.summary)
    if not missing:
        return False
    from automem.extract.rules.errors import says_installed

    return any(says_installed(m.summary, missing.group(1)) for m in existing if not _forgotten(m))


def _compared(memory: Memory) -> str:
    """What dedupe compares: the summary and the content without the labels every memory of a kind shares."""
    return memory.summary + "\n" + _LABELS.sub("", memory.content)


def _finish_state(
    state_path: Path, state: dict, session_clusters: Counter, prior: Counter, clusters_path: Path
) -> None:
    old = Counter(state.get("clusters", {}))
    merged = prior - old + session_clusters  # replace this session's share with its latest count
    state["clusters"] = dict(session_clusters)
    state["at"] = now_iso()
    _save_json(state_path, state)  # on disk before the counts: a lost state would count this session twice
    top = dict(merged.most_common(500))
    _save_json(clusters_path, {"counts": top}, durable=False)  # lost in a crash: fewer counts, never more


def _save_text(path: Path, text: str) -> None:
    """A note shown once at the next start (what the last extraction did): no fsync, as for the state."""
    from automem.store import write_file

    write_file(path, text + "\n", durable=False)


def _transcript_session(path: Path, harness: str | None) -> str:
    from automem.extract.turns import read_all_turns

    try:
        turns = read_all_turns(path, harness if harness in ("claude-code", "codex", "pi", "omp") else None)
    except (OSError, ValueError):
        return ""
    return next((t.session_id for t in turns if t.session_id), "")


def _file_key(transcript: str | Path | None) -> str:
    return "transcript-" + sha256_hex(str(transcript or ""))[:16]


def _read_steps(
    home: Home, session_id: str, transcript, harness, state: dict
) -> tuple[list[Step], str, str | None, str]:
    """The session's steps, its folder, its harness, and the fingerprint of its opening (see extract/family.py)."""
    from automem.extract.family import opening

    steps: list[Step] = []
    cwd = ""
    opened = ""
    if transcript and Path(transcript).is_file():
        from automem.extract.turns import guess_harness, read_all_turns

        harness = harness if harness in ("claude-code", "codex", "pi", "omp") else guess_harness(Path(transcript))
        turns = read_all_turns(transcript, harness)
        steps = steps_from_turns(turns)
        opened = opening(turns)
        cwd = next((t.cwd for t in reversed(turns) if t.cwd), "") or ""
    if session_id:
        from automem.capture import spool

        records = spool.read(session_id, str(home.root))
        if not cwd:
            cwd = next((r.get("cwd") for r in reversed(records) if isinstance(r.get("cwd"), str)), "")
        harness = harness or next((r.get("harness") for r in records if r.get("harness")), None)
        spooled = steps_from_spool(records)
        if not steps:
            steps = spooled
        else:  # the transcript has the prompts; keep spooled feedback it does not show (redacted there)
            have = {s.text.strip().lower() for s in steps if s.kind == "prompt"}
            steps += [s for s in spooled if s.kind == "prompt" and not any(s.text.strip().lower() in h for h in have)]
    return steps, cwd, harness, opened


def _existing(project: Project, home: Home) -> list[Memory]:
    """The memories a candidate is compared with: the project's, the global ones, and what the user forgot
    (a forgotten lesson must not come back the next time the same thing happens)."""
    memories = list_memories(project)
    if project.slug != GLOBAL_PROJECT:
        memories += list_memories(home.global_project())
    for owner in {project.slug: project, GLOBAL_PROJECT: home.global_project()}.values():
        trash = owner.trash_dir
        if trash.is_dir():
            for path in sorted(trash.glob("*.md")):
                try:
                    memory = parse(path)
                except ValueError:
                    continue
                if _forgotten(memory):
                    memories.append(memory)
    return memories


def _opposed(one: str, other: str) -> bool:
    """Does either rule turn away from what the other uses?"""
    from automem.extract.rules.said import overturns

    return overturns(one, other) or overturns(other, one)


def _retire_overturned(rule: Memory, existing: list[Memory], owner: Project, home: Home) -> list[Memory]:
    """A rule the user states now against an automatic one of an earlier session in the same folder ("Use pnpm, not
    npm" after "Use npm", "Use npm" after "Use pnpm, not npm") retires the earlier one: to trash, marked expired, so
    it is never injected beside the new one and may be learned again if the user goes back to it. The user's own
    memories are never touched. Returns those retired."""
    from automem.extract.rules.said import contradicts
    from automem.index.upsert import remove_file
    from automem.schema import CANDIDATE, PROMOTED
    from automem.store import write_markdown
    from automem.store.memories import move_to_trash

    retired = []
    for old in existing:
        path = old.path
        if (
            path is None
            or path.parent != owner.memories_dir
            or not old.is_automatic
            or old.status not in (CANDIDATE, PROMOTED)
            or old.type not in ("decision", "preference")
            or not contradicts(rule.summary, old.summary)
            or _edited_since_written(old)
        ):
            continue
        old.status = EXPIRED
        old.content = f"{old.content}\n\nOverturned by a later rule: {rule.summary} ({rule.id})".strip()
        write_markdown(path, old.render())
        old.path = move_to_trash(old, owner)
        retired.append(old)
        try:
            remove_file(path, str(home.root))
        except Exception as exc:  # noqa: BLE001 - the Markdown is the truth; a full sync drops the row
            from automem.log import log_error

            log_error("extract", f"index update failed: {type(exc).__name__}: {exc}", home=str(home.root))
    return retired


def _edited_since_written(memory: Memory, slack: float = 120.0) -> bool:
    """Was the file changed after automem last wrote it (its mtime past every stamp automem keeps)? A person who
    edited an automatic memory made it theirs: a later rule leaves it alone."""
    from automem.isotime import iso_epoch

    try:
        mtime = memory.path.stat().st_mtime if memory.path is not None else 0.0
    except OSError:
        return False
    stamps = [iso_epoch(s, 0.0) for s in (memory.created, memory.last_seen, memory.promoted_at) if s]
    return bool(stamps) and mtime > max(stamps) + slack


def _forgotten(memory: Memory) -> bool:
    """In trash because the user forgot it (an expired candidate may be learned again when it comes back)."""
    from automem.schema import EXPIRED

    return memory.path is not None and memory.path.parent.name == "trash" and memory.status != EXPIRED


def _fingerprint(cand: Candidate) -> str:
    return sha256_hex(f"{cand.kind}|{cand.summary}")[:16]


def _to_memory(cand: Candidate, harness: str, session_id: str, family: str = "") -> Memory:
    from automem.schema import CANDIDATE, PROMOTED

    tags = ["auto-memorize", cand.kind, *[s for s in cand.signals if s != cand.kind]]
    created = now_iso()
    return Memory(
        type=cand.kind,
        summary=redact(cand.summary),
        content=redact(cand.content),
        why=redact(cand.why),
        how_to_apply=redact(cand.how_to_apply),
        tags=list(dict.fromkeys(tags)),
        scope=cand.scope if cand.scope in ("project", "global") else "project",
        source="auto-memorize",
        harness=harness,
        session_id=session_id,
        created=created,
        status=PROMOTED if cand.promotion else CANDIDATE,
        promoted=cand.promotion,
        promoted_at=created if cand.promotion else "",
        family=family or session_id,
        rule=cand.rule,
    )


def _index(memory: Memory, home: Home) -> None:
    try:
        from automem.index.upsert import index_file

        if memory.path is not None:
            index_file(memory.path, str(home.root))
    except Exception as exc:  # noqa: BLE001 - the Markdown is the truth; the index is rebuildable
        from automem.log import log_error

        log_error("extract", f"index update failed: {type(exc).__name__}: {exc}", home=str(home.root))


def _with_model(
    found: list[Candidate], steps: list[Step], model: str, cfg, home: Home, last: str | None
) -> list[Candidate]:
    """Model synthesis when asked for; any failure keeps the deterministic candidates."""
    try:
        from automem.llm import synthesize

        better = synthesize(
            found,
            steps,
            model=model,
            timeout=float(cfg.get("llm.timeout_seconds", 20) or 20),
            home=home,
            last_message=last,
        )
        return confirm(better, found) if better else found
    except Exception as exc:  # noqa: BLE001
        from automem.log import log_error

        log_error(
            "llm", f"synthesis failed, deterministic candidates kept: {type(exc).__name__}: {exc}", home=str(home.root)
        )
        return found


def confirm(better: list[Candidate], found: list[Candidate]) -> list[Candidate]:
    """Give each model lesson the promotion of the rule candidate it restates (model-confirmed when that one
    had none); lessons that restate no candidate stay candidates."""
    deduper = Deduper([f"{c.summary}\n{c.content}" for c in found])
    for cand in better:
        match = deduper.duplicate_of(f"{cand.summary}\n{cand.content}")
        if match is not None:
            cand.promotion = found[match].promotion or MODEL
    return better


def consume_note(home: Home, session_id: str) -> str:
    """The last extraction's one-line message for this session, once (the next Stop hook shows it)."""
    from automem.store import remove

    path = note_path(home, session_id)
    try:
        text = path.read_text(encoding="utf-8").strip()
        remove(path, home=home, missing_ok=False)
    except OSError:
        return ""
    return text
