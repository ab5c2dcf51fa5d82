"""The extraction rules: small functions over one session, each yielding lesson candidates.

Every rule reads the same ``Session`` (the neutral steps of extract/steps.py plus what the rules
share: the intent of each call, the project folder for portable paths, error counts of earlier
sessions) and returns candidates. A rule that is not sure abstains: a wrong memory costs more
than a missing one, and a candidate still has to earn its promotion before it is ever injected.

    from automem.extract.rules import RULES, Session, find_candidates
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from automem import regex_cache
from automem.extract.intent import Intent, intent_of
from automem.extract.steps import Step
from automem.record import field, record
from automem.schema import Candidate

MAX_CANDIDATES = 12


@record
class Session:
    """A session's steps, with what the rules share about it (its project folder, earlier error clusters)."""

    steps: list[Step]
    root: str = ""  # the project folder (portable paths: it becomes ./)
    prior_clusters: Counter = field(default_factory=Counter)  # error cluster -> count in earlier sessions
    _intents: dict[int, Intent] = field(default_factory=dict)

    def intent(self, index: int) -> Intent:
        found = self._intents.get(index)
        if found is None:
            step = self.steps[index]
            found = self._intents[index] = intent_of(step.tool, step.raw or step.input)
        return found


Rule = Callable[[Session], list[Candidate]]


def _rules() -> list[Rule]:
    from automem.extract.rules import destructive, errors, machine, repeated, reports, requests, said, slow

    return [
        said.directive_rule,
        said.rejection_rule,
        said.correction_rule,
        said.redirect_rule,
        destructive.destructive_rule,
        said.location_rule,
        said.deliberate_setting_rule,
        said.mapping_rule,
        said.doc_file_rule,
        said.stack_rule,
        said.rule_list_rule,
        said.choice_rule,
        said.asked_choice_rule,
        said.repeated_request_rule,
        repeated.repeated_line_rule,
        requests.ignored_by_request_rule,
        requests.dependency_by_request_rule,
        requests.deleted_by_request_rule,
        requests.fix_at_source_rule,
        requests.command_source_rule,
        errors.missing_command_rule,
        errors.repeated_error_rule,
        errors.fixed_error_rule,
        errors.missing_module_rule,
        errors.stated_requirement_rule,
        errors.shell_separator_rule,
        errors.interactive_rule,
        errors.offline_sandbox_rule,
        errors.old_python_rule,
        errors.commit_hook_rule,
        errors.unsupported_option_rule,
        machine.unwritable_place_rule,
        machine.sudo_password_rule,
        slow.big_listing_rule,
        reports.diagnosis_rule,
        reports.reported_problem_rule,
        reports.answered_question_rule,
        reports.pasted_continuation_rule,
    ]


def _readable_head(summary: str) -> str:
    """The summary, or its longest leading run of clauses that reads as a sentence; "" when none does."""

    from automem.extract.usable import readable

    if readable(summary):
        return summary
    cuts = [m.start() for m in re.finditer(r",\s+|;\s+|\s+--?\s+|:\s+", summary)]
    for cut in reversed(cuts):
        head = summary[:cut].rstrip(" ,;:-")
        if len(head) >= 20 and readable(head):
            return head
    return ""


def find_candidates(session: Session, limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """Every rule's candidates, made portable and readable, strongest first, at most ``limit``."""
    from automem.extract.directives import temporary
    from automem.extract.usable import generalize, holds_secret, summary_text, without_secret_values

    out: list[Candidate] = []
    seen: set[str] = set()
    for rule in _rules():
        heard = rule.__module__.endswith((".said", ".requests", ".repeated"))
        for cand in rule(session):
            if heard and temporary(f"{cand.summary}\n{cand.content}"):
                continue  # what the user said or asked, called a stopgap in their own words ("for now")
            cand.rule = cand.rule or rule.__name__
            cand.summary = _readable_head(summary_text(without_secret_values(cand.summary), session.root))
            cand.how_to_apply = without_secret_values(cand.how_to_apply)
            if not cand.summary or holds_secret(cand.summary) or holds_secret(cand.how_to_apply):
                continue  # a lesson that cannot be said without a secret's value is not stored
            key = cand.summary.lower()
            if key in seen:
                continue
            seen.add(key)
            cand.content = generalize(without_secret_values(cand.content), session.root)
            cand.why = generalize(without_secret_values(cand.why), session.root)
            cand.how_to_apply = generalize(cand.how_to_apply, session.root)
            out.append(cand)
    out = merge_escalations(out)
    from automem.extract.rules.later import check_later

    out = check_later(session, out)
    out.sort(key=lambda c: -c.weight)
    return out[:limit]


_ESCALATED = regex_cache.compile(r"^(.+?) needs escalated sandbox permissions(?: to write in (\S+))? here\b")


def merge_escalations(found: list[Candidate]) -> list[Candidate]:
    """Several calls of one session that the sandbox let through only escalated are one fact about the sandbox:
    one memory naming them all, not a brief line each."""
    escalated = [(c, m) for c in found if (m := _ESCALATED.match(c.summary))]
    if len(escalated) < 2:
        return found
    from automem.extract import phrasing

    names: dict[str, list[str]] = {}
    for _cand, match in escalated:
        names.setdefault(match.group(2) or "", []).append(match.group(1))
    parts = [
        " and ".join(dict.fromkeys(group)) + (f" (writing in {place})" if place else "")
        for place, group in sorted(names.items(), key=lambda item: not item[0])
    ]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    first = escalated[0][0]
    merged = Candidate(
        kind="observation",
        summary=phrasing.fit(f"The sandbox blocks {listed} here; rerun them with escalated permissions"),
        content=_escalated_content([c.content for c, _ in escalated]),
        why=f"{len(escalated)} calls failed in the sandbox and worked once rerun with escalated permissions.",
        how_to_apply="Ask for escalated permissions for these calls from the start.",
        signals=first.signals,
        scope=first.scope,
        weight=max(c.weight for c, _ in escalated),
        promotion=first.promotion,
        rule=first.rule,
    )
    gone = {id(c) for c, _ in escalated[1:]}
    return [merged if c is first else c for c in found if id(c) not in gone]


def _escalated_content(contents: list[str]) -> str:
    """The calls the sandbox let through only escalated: the first failure, what worked (each call rerun as it was,
    escalated: said once, where a fix per call would put each call's long command in the brief line), the others."""
    lines = [line for text in contents for line in text.splitlines() if line and not line.startswith("What worked:")]
    worked = any(line.startswith("What worked:") for text in contents for line in text.splitlines())
    lines = list(dict.fromkeys(lines))
    return "\n".join(lines[:1] + (["What worked: the same calls, escalated."] if worked else []) + lines[1:])
