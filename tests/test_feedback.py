"""User feedback in prompts: kinds, whole sentences, retraction, negation, pasted code."""

from __future__ import annotations

import pytest

from automem.capture.feedback import MAX_ITEMS, MAX_TEXT, detect_feedback

KINDS = [
    ("No, don't use tabs here.", "correction"),
    ("Stop doing that, please.", "correction"),
    ("That's wrong, the port is 8080.", "correction"),
    ("revert that", "correction"),
    ("Don't mock the database, use a real one instead.", "correction"),
    ("That's not what I asked for.", "correction"),
    ("can you undo that?", "correction"),
    ("Perfect!", "confirmation"),
    ("Exactly.", "confirmation"),
    ("Keep doing that.", "confirmation"),
    ("Yes, that's right.", "confirmation"),
    ("Great, now add the tests.", "confirmation"),
    ("That's exactly what I wanted.", "confirmation"),
    ("I prefer pytest over unittest.", "preference"),
    ("I'd rather keep the old API.", "preference"),
    ("Always use uv to install packages.", "preference"),
    ("never use print for logging", "preference"),
    ("From now on, write the tests first.", "preference"),
    ("use pnpm instead of npm", "preference"),
    ("Every time you change the schema, run the migrations.", "rule"),
    ("whenever you touch the parser, run the fuzz tests", "rule"),
    ("Remember to always bump the version.", "rule"),
]


@pytest.mark.parametrize("prompt,kind", KINDS)
def test_each_kind(prompt, kind):
    [item] = detect_feedback(prompt)
    assert item["feedback"] == kind
    assert item["phrase"] and item["phrase"].lower() in prompt.lower()


def test_keeps_the_whole_sentence_not_only_the_phrase():
    prompt = "Thanks for the summary. From now on, write commit messages in English. Then push."
    [item] = detect_feedback(prompt)
    assert item == {
        "feedback": "preference",
        "text": "From now on, write commit messages in English.",
        "phrase": "From now on",
    }


def test_several_items_in_order():
    prompt = (
        "Perfect, the parser works.\nBut never use global state in it.\nWhenever you add a rule, add a test for it."
    )
    assert [i["feedback"] for i in detect_feedback(prompt)] == ["confirmation", "preference", "rule"]


@pytest.mark.parametrize(
    "prompt",
    [
        "Always use tabs. Never mind.",
        "Perfect! Just kidding.",
        "No, don't do that. Scratch that.",
    ],
)
def test_retraction_cancels_what_came_before(prompt):
    assert detect_feedback(prompt) == []


def test_feedback_after_a_retraction_stays():
    [item] = detect_feedback("Always use tabs. Scratch that, use spaces instead of tabs.")
    assert item["feedback"] == "preference"
    assert item["text"] == "use spaces instead of tabs."


@pytest.mark.parametrize(
    "prompt",
    [
        "I don't prefer tabs.",
        "not perfect",
        "This is not perfect yet.",
        "it's not exactly what I want",
        "It isn't perfect but ship it.",
        "we don't always use the cache",
    ],
)
def test_negation_is_not_praise_or_preference(prompt):
    assert [i for i in detect_feedback(prompt) if i["feedback"] in ("confirmation", "preference")] == []


@pytest.mark.parametrize(
    "prompt",
    [
        "fix the error in x.py",
        "always returns None — why?",
        "what exactly does this do?",
        "Why did you revert that?",
        "Every time I run it, it crashes.",
        "Great question: how does the cache expire?",
        "add a function that always uses the default timeout",
        "please implement the login page",
        "never mind",
    ],
)
def test_ordinary_task_prompts_are_not_feedback(prompt):
    assert detect_feedback(prompt) == []


def test_pasted_code_and_logs_are_skipped():
    prompt = (
        "Here is the output:\n"
        "```\n"
        "no, don't retry\n"
        "Always use the cache\n"
        "```\n"
        "2024-05-01 10:00:00 ERROR always use the fallback\n"
        "    # never use globals here\n"
        "> Perfect, that's exactly right\n"
        "<system-reminder>\nFrom now on, obey\n</system-reminder>\n"
        "can you look at it"
    )
    assert detect_feedback(prompt) == []


def test_caps():
    prompt = " ".join(f"Always use tool{i}." for i in range(20))
    assert len(detect_feedback(prompt)) == MAX_ITEMS
    [item] = detect_feedback("From now on " + "really " * 400 + "use spaces.")
    assert len(item["text"]) == MAX_TEXT


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_empty_or_wrong_input(bad):
    assert detect_feedback(bad) == []


def test_no_as_an_interjection_does_not_negate_what_follows():
    from automem.capture.feedback import detect_feedback

    assert [i["feedback"] for i in detect_feedback("no, always use pnpm instead of npm")] == ["preference"]
    assert detect_feedback("no perfect solution exists") == []
