"""automem.markdown: the tree's Markdown format, read and written in one place.

``load`` must read a memory a person edited as python-frontmatter with PyYAML's safe loader did (the reference below
is that library's algorithm over ``yaml.safe_load``; PyYAML stays installed for config.yml), and what automem writes
must read back as it was written, byte for byte as before.
"""

from __future__ import annotations

import datetime
import json
import math
import re

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from automem import markdown
from automem.markdown import FrontmatterError, frontmatter_lines, load, split_frontmatter
from automem.store import memories
from automem.store.memories import Memory

_BOUNDARY = re.compile(r"^-{3,}\s*$", re.M)


def reference(text: str):
    """python-frontmatter 1.1's loads over yaml.safe_load: ("ok", metadata, content) or ("error",)."""
    text = text.replace("\r\n", "\n").strip()
    if not _BOUNDARY.match(text):
        return "ok", {}, text
    parts = _BOUNDARY.split(text, 2)
    if len(parts) < 3:
        return "ok", {}, text
    try:
        data = yaml.safe_load(parts[1])
    except Exception:  # noqa: BLE001 - YAML's errors and a date out of range alike
        return ("error",)
    return "ok", data if isinstance(data, dict) else {}, parts[2].strip()


def ours(text: str):
    try:
        meta, body = load(text)
    except FrontmatterError:
        return ("error",)
    return "ok", meta, body


def typed(value):
    """A value with its type spelled out (True == 1 and 1 == 1.0 in Python; NaN != NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return type(value).__name__, value


CASES = {
    "written": (
        '---\nid: "2024-01-01T10-00-00-abc"\ntype: "pattern"\n'
        'summary: "Run \\"make\\" first: it\'s C:\\\\x"\ntags:\n  - "auto-memorize"\n  - "errors"\n'
        'scope: "project"\nseen: 2\n---\n\nBody\n\n**Why:** x\n'
    ),
    "plain": '---\ntype: pattern\nsummary: Use pnpm, not npm\ntags: [a, b, "c d"]\nseen: 3\n---\nbody',
    "block_same_col": "---\ntags:\n- a\n- b\nsummary: x\n---\nbody",
    "bools": "---\na: yes\nb: No\nc: true\nd: off\ne: null\nf: ~\ng:\nh: 'it''s'\n---\n",
    "numbers": (
        "---\na: 1\nb: -2\nc: 0x1F\nd: 017\ne: 1_000\nf: 3.5\ng: 1e5\nh: 1.0e+5\ni: .inf\nj: 08\nk: 1:30\n"
        "l: +12\n---\nb"
    ),
    "dates": (
        "---\na: 2024-01-01\nb: 2024-01-01T10:00:00Z\nc: 2024-01-01 10:00:00\n"
        "d: 2024-01-01T10:00:00.123+02:00\ne: 2024-1-1\nf: 2024-01-01T10:00:00.5Z\n---\nb"
    ),
    "comments": "---\n# a comment\nsummary: hello # trailing\ntype: pattern#notcomment\n\n---\nb",
    "multiline_plain": "---\nsummary: this is a\n  long line\n\n  with a paragraph\ntype: x\n---\nb",
    "dq_multi": '---\nsummary: "this is\n  folded\n\n  para"\ntype: x\n---\nb',
    "sq_multi": "---\nsummary: 'this is\n  folded'\n---\nb",
    "literal": "---\nsummary: |\n  line one\n  line two\n\ntype: x\n---\nb",
    "folded": "---\nsummary: >\n  line one\n  line two\n\n  para\ntype: x\n---\nb",
    "folded_strip": "---\nsummary: >-\n  line one\n  line two\n---\nb",
    "literal_keep": "---\nsummary: |+\n  line one\n\ntype: x\n---\nb",
    "nested": "---\nmeta:\n  a: 1\n  b: [x, y]\nlist:\n  - a: 1\n    b: 2\n  - c\n---\nb",
    "flow_map": "---\nm: {a: 1, b: two}\ne: []\nf: {}\n---\nb",
    "crlf": "---\r\ntype: pattern\r\nsummary: x\r\n---\r\nbody\r\n",
    "no_fm": "just text\n",
    "one_fence": "---\ntype: x\nno end",
    "dashes4": "----\ntype: x\n-----  \nbody",
    "empty_fm": "---\n---\nbody",
    "scalar_fm": "---\njust a scalar\n---\nbody",
    "list_fm": "---\n- a\n- b\n---\nbody",
    "bad_colon": "---\nsummary: use a: b\n---\nb",
    "bad_indent": "---\ntype: x\n  summary: y\n---\nb",
    "bad_unclosed": '---\nsummary: "abc\n---\nb',
    "bad_noline": "---\ntype: x\njunk line\n---\nb",
    "bad_date": "---\ncreated: 2024-13-45\n---\nb",
    "bad_at": "---\nsummary: @foo\n---\nb",
    "bad_tab": "---\ntype: x\n\tsummary: y\n---\nb",
    "dup": "---\na: 1\na: 2\n---\nb",
    "quoted_key": "---\n\"type\": pattern\n'seen': 2\n---\nb",
    "escapes": '---\na: "tab\\there \\u00e9 \\x41 \\/ \\\\"\nb: "esc\\\n   aped"\n---\nb',
    "url": "---\nsource: http://example.com/x\nt: [http://a.b/c, d]\n---\nb",
    "colon_end": "---\nsummary: foo:\n---\nb",
    "dash_value": "---\nsummary: -foo\nb: - x\n---\nb",
    "unicode": "---\nsummary: café — 😀\n---\nb",
    "bom": "\ufeff---\ntype: x\n---\nb",
    "ctrl": "---\nsummary: a\x01b\n---\nb",
    "body_dashes": "---\ntype: x\n---\nbody\n---\nmore",
    "blank_fm_lines": "---\n\n\ntype: x\n\n---\n\n\nbody",
    "trailing_space_key": "---\ntype   : x\n---\nb",
    "sq_in_plain": "---\nsummary: don't do it\n---\nb",
    "hash_in_quoted": '---\nsummary: "a # b"\n---\nb',
    "tags_plain": "---\ntags: foo\n---\nb",
    "tags_empty_block": "---\ntags:\nsummary: x\n---\nb",
    "bad_tags_indent": "---\ntags:\n  - a\n - b\n---\nb",
    "seq_nested_seq": "---\nx:\n  - - a\n    - b\n  - c\n---\nb",
    "flow_multiline": "---\ntags: [a,\n  b, c]\n---\nb",
    "flow_trailing_comma": "---\ntags: [a, b,]\n---\nb",
    "plain_with_quotes": '---\nsummary: say "hi" now\n---\nb',
    "key_no_space": "---\ntype:pattern\n---\nb",
    "literal_more_indent": "---\ns: |\n  a\n    b\n  c\n---\nb",
    "folded_more_indent": "---\ns: >\n  a\n    b\n  c\n---\nb",
    "winpath": "---\nsummary: C:\\Users\\x run\n---\nb",
    "quoted_comment": "---\nsummary: \"x\" # c\ntype: 'y'   \n---\nb",
    "quoted_junk": '---\nsummary: "x" y\n---\nb',
    "percent_mid": "---\nsummary: 100% sure\n---\nb",
    "question": "---\nsummary: why? because\n---\nb",
    "empty_str": "---\nsummary: \"\"\nt: ''\n---\nb",
    "num_str": '---\nseen: "3"\nid: 20240101\n---\nb',
    "tilde_in": "---\nsummary: ~/bin is on PATH\n---\nb",
    "star_mid": "---\nsummary: use *.py globs\n---\nb",
    "bracket_mid": "---\nsummary: a [b] c\n---\nb",
    "brace_start": "---\nsummary: {not closed\n---\nb",
    "list_of_quoted": "---\ntags:\n  - \"a\"   # c\n  - 'b'\n  -   c  \n---\nb",
    "item_empty": "---\ntags:\n  -\n  - b\n---\nb",
    "deep_then_back": "---\na:\n  b:\n    c: 1\n  d: 2\ne: 3\n---\nb",
    "long_body": "---\ntype: x\n---\n\n\n# Title\n\ntext  \n\n",
    "fm_only_ws": "---\n   \n---\nb",
    "version_like": "---\nv: 1.2.3\nw: 1.2\n---\nb",
    "neg_zero": "---\na: -0\nb: 00\nc: 0.\nd: -.5\n---\nb",
    "date_space_tz": "---\nd: 2024-01-01 10:00:00 +05:30\ne: 2024-01-01t10:00:00z\n---\nb",
    "keys_with_spaces": "---\nmy key: v\n---\nb",
    "plain_colon_nospace_end": "---\nurl: a:b:c\n---\nb",
    "sequence_compact_map": "---\n- a: 1\n  b: 2\n---\nb",
    "literal_indicator": "---\ns: |2\n    x\n   y\n---\nb",
    "nested_flow": "---\nt: [[a, b], {c: d}]\n---\nb",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written_frontmatter_reads_as_yaml_read_it(name):
    want, got = reference(CASES[name]), ours(CASES[name])
    assert got[0] == want[0], (want, got)
    if want[0] == "ok":
        assert typed(got[1]) == typed(want[1])
        assert got[2] == want[2]


def test_the_cases_cover_what_a_person_writes():
    """Block and flow lists, quoted and plain scalars, booleans, numbers, dates, and YAML that is not YAML."""
    results = {name: reference(text) for name, text in CASES.items()}
    assert results["block_same_col"][1]["tags"] == ["a", "b"]
    assert results["plain"][1]["tags"] == ["a", "b", "c d"] and results["plain"][1]["seen"] == 3
    assert results["bools"][1]["a"] is True and results["bools"][1]["e"] is None
    assert results["dates"][1]["a"] == datetime.date(2024, 1, 1)
    assert isinstance(results["dates"][1]["b"], datetime.datetime)
    assert results["no_fm"] == ("ok", {}, "just text")
    assert results["one_fence"] == ("ok", {}, "---\ntype: x\nno end")
    assert all(results[name] == ("error",) for name in CASES if name.startswith("bad_"))
    assert sum(r == ("error",) for r in results.values()) >= 10


def test_a_tag_that_would_build_an_object_is_refused():
    """The safe loader: YAML may name a Python object to build; a memory file must never run anything."""
    with pytest.raises(FrontmatterError):
        load("---\na: !!python/object/apply:os.system ['true']\n---\nb")


def test_malformed_frontmatter_names_its_line():
    with pytest.raises(FrontmatterError, match="line 3"):
        load("---\ntype: pattern\njunk line\n---\nbody")
    with pytest.raises(ValueError):  # FrontmatterError is a ValueError: the callers' except clauses hold
        load("---\nsummary: use a: b\n---\n")


def test_a_memory_file_with_malformed_frontmatter_is_skipped_with_its_path(tmp_path):
    from automem.home import Home, Project

    project = Project(Home(tmp_path / "home"), "p", str(tmp_path))
    project.memories_dir.mkdir(parents=True)
    bad = project.memories_dir / "bad.md"
    bad.write_text("---\ntype: pattern\nsummary: a: b\n---\nbody\n", encoding="utf-8")
    good = project.memories_dir / "good.md"
    good.write_text("---\ntype: decision\nsummary: Use pnpm\ntags:\n- build\nseen: 2\n---\nUse pnpm.\n")
    with pytest.raises(ValueError, match="bad.md: not a memory file"):
        memories.parse(bad)
    listed = memories.list_memories(project)
    assert [m.summary for m in listed] == ["Use pnpm"]
    assert listed[0].tags == ["build"] and listed[0].seen == 2 and listed[0].type == "decision"


def test_a_hand_edited_memory_reads_as_before(tmp_path):
    """Dates YAML typed, numbers, flow lists: the Memory built is what python-frontmatter's metadata gave."""
    path = tmp_path / "m.md"
    path.write_text(
        "---\ntype: pattern\nsummary: >\n  Run the linter\n  before the tests\ntags: [lint, ci]\n"
        "created: 2024-05-01\nlast_seen: 2024-05-02T10:00:00Z\nseen: 3\nsource: user\n---\n"
        "Run `make lint` first.\n\n**Why:** CI fails otherwise.\n\n**How to apply:** Always.\n",
        encoding="utf-8",
    )
    memory = memories.parse(path)
    assert memory.summary == "Run the linter before the tests"
    assert memory.tags == ["lint", "ci"]
    assert memory.created == "2024-05-01" and memory.last_seen == "2024-05-02 10:00:00+00:00"
    assert memory.seen == 3 and memory.source == "user" and memory.status == ""
    assert (memory.content, memory.why, memory.how_to_apply) == (
        "Run `make lint` first.",
        "CI fails otherwise.",
        "Always.",
    )


def _old_yaml_str(value) -> str:
    return json.dumps(str(value), ensure_ascii=False)


TRICKY = [
    "plain",
    'say "hi"',
    "back\\slash",
    "caf\u00e9 \u2014 \U0001f600",
    "line\nbreak\ttab",
    "\x01ctrl",
    "",
    "a: b # c",
]


def test_the_writer_gives_the_bytes_automem_wrote_before():
    fields = [("id", "x"), ("summary", TRICKY[1]), ("tags", TRICKY), ("seen", 3), ("empty", [])]
    old = [
        "---",
        f"id: {_old_yaml_str('x')}",
        f"summary: {_old_yaml_str(TRICKY[1])}",
        "tags:",
        *[f"  - {_old_yaml_str(t)}" for t in TRICKY],
        "seen: 3",
        "empty: []",
        "---",
    ]
    assert frontmatter_lines(fields) == old
    assert markdown.quote("caf\u00e9", ascii_only=True) == json.dumps("caf\u00e9")
    assert markdown.flow_list(["todos", "plan"]) == json.dumps(["todos", "plan"])


def test_a_memory_renders_as_before_and_reads_back():
    memory = Memory(
        type="pattern",
        summary='Quote "this": C:\\path \u00e9',
        content="Body",
        why="Because",
        tags=["auto-memorize", "errors"],
        source="auto-memorize",
        harness="claude-code",
        session_id="s1",
        created="2024-01-01T10:00:00.000Z",
        status="promoted",
        promoted="instruction",
        rule="errors",
    )
    text = memory.render()
    assert text == (
        "---\n"
        f'id: "{memory.id}"\n'
        'type: "pattern"\n'
        'summary: "Quote \\"this\\": C:\\\\path \u00e9"\n'
        "tags:\n"
        '  - "auto-memorize"\n'
        '  - "errors"\n'
        'scope: "project"\n'
        'source: "auto-memorize"\n'
        'harness: "claude-code"\n'
        'session_id: "s1"\n'
        'created: "2024-01-01T10:00:00.000Z"\n'
        'last_seen: "2024-01-01T10:00:00.000Z"\n'
        "seen: 1\n"
        'status: "promoted"\n'
        'promoted: "instruction"\n'
        'rule: "errors"\n'
        "---\n\nBody\n\n**Why:** Because\n"
    )
    assert reference(text) == ours(text)
    meta, body = split_frontmatter(text)
    assert meta["summary"] == memory.summary and meta["tags"] == memory.tags and meta["seen"] == "1"
    assert body == "\nBody\n\n**Why:** Because\n"


# YAML also breaks lines at NEL, LS and PS, which this reader (like automem's writer) keeps as characters
TEXT = st.text(st.characters(blacklist_characters="\r\x85\u2028\u2029", blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True),
        st.one_of(
            TEXT,
            st.integers(-1000, 10**6),
            st.booleans(),
            st.lists(TEXT, max_size=4),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_what_yaml_writes_reads_as_yaml_reads_it(meta, flow):
    """Any frontmatter PyYAML's own writer makes (plain, quoted, folded, block or flow lists) reads the same."""
    head = yaml.safe_dump(meta, default_flow_style=flow, allow_unicode=True, sort_keys=False) if meta else ""
    text = f"---\n{head}---\nbody\n"
    want, got = reference(text), ours(text)
    assert got[0] == want[0] == "ok", (text, want, got)
    assert typed(got[1]) == typed(want[1]), text


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True),
            st.one_of(TEXT, st.integers(0, 10**6), st.lists(TEXT, max_size=4)),
        ),
        max_size=6,
        unique_by=lambda kv: kv[0],
    )
)
@example([("no", ""), ("on", "x"), ("null", 3), ("true", ["a"])])  # keys YAML 1.1 reads as booleans or null
def test_what_automem_writes_reads_back_both_ways(fields):
    text = "\n".join(frontmatter_lines(fields)) + "\n\nbody\n"
    want, got = reference(text), ours(text)
    assert typed(got) == typed(want)  # a control character YAML refuses is refused by both
    if got[0] == "ok":
        assert got[1] == dict(fields)
    flat, body = split_frontmatter(text)
    assert body == "\nbody\n"
    for key, value in fields:
        if isinstance(value, int):
            assert flat[key] == str(value)
        elif isinstance(value, list):
            assert flat[key] == (value if value else [])
        elif "\n" not in value and "\r" not in value:
            assert flat[key] == value


def test_sections_and_the_human_part():
    body = "## Prompt\n\nDo it\n\n## Actions\n\n- bash: ls\n\n## Result\n\nDone.\n"
    assert markdown.sections(body) == {"Prompt": "Do it", "Actions": "- bash: ls", "Result": "Done."}
    main = f"# Notes\n\nmine\n\n{markdown.INDEX_START}\n- row\n{markdown.INDEX_END}\n"
    assert markdown.human_part(main) == "# Notes\n\nmine"


def test_a_value_read_from_the_head_alone(tmp_path):
    path = tmp_path / "e.md"
    path.write_text('---\nid: "x"\ntitle: "A \\"quoted\\" title"\ntags:\n  - "bash"\nturn_key: "k:1"\n---\nbody\n')
    assert markdown.frontmatter_value(path, "turn_key") == "k:1"
    assert markdown.frontmatter_value(path, "missing") is None
    assert markdown.frontmatter_value(tmp_path / "gone.md", "id") is None
    odd = tmp_path / "odd.md"
    odd.write_text("\n".join(frontmatter_lines([("no", "n"), ("a b", "x")])) + "\nbody\n")
    assert markdown.frontmatter_value(odd, "no") == "n" and markdown.frontmatter_value(odd, "a b") == "x"
    assert markdown.read_frontmatter(path) == {
        "id": "x",
        "title": 'A "quoted" title',
        "tags": ["bash"],
        "turn_key": "k:1",
    }
    (tmp_path / "plain.md").write_text("no frontmatter\n")
    assert markdown.read_frontmatter(tmp_path / "plain.md") is None


def test_the_module_imports_nothing_outside_the_standard_library():
    """The hooks and index/ import it: the flat reader needs no YAML; only ``load`` imports PyYAML (its patterns
    come from lazy_re and regex_cache, which import only the standard library)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['yaml'] = None; sys.modules['frontmatter'] = None\n"
        "import automem.markdown as m\n"
        "print(m.split_frontmatter('---\\na: 2024-01-01\\nb: [x, 1]\\n---\\nbody'))\n"
        "print(sorted(n for n, mod in sys.modules.items() if mod is not None and n.split('.')[0] not in"
        " sys.stdlib_module_names and n not in ('__main__', '_distutils_hack')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "({'a': '2024-01-01', 'b': ['x', '1']}, 'body')",
        "['automem', 'automem.lazy_re', 'automem.markdown', 'automem.regex_cache']",
    ]


_PIECES = st.sampled_from(
    [
        '"',
        "\\",
        '\\"',
        "\\\\",
        "\\n",
        "\\t",
        "\\/",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\x41",
        "\\0",
        "\\N",
        ":",
        ": ",
        "#",
        " #",
        "'",
        "é",
        "\u2028",
        "\x85",
        "\t",
        "[]",
        "[",
        "]",
        "{}",
        "-",
        "  - ",
        "0",
        "007",
        "-0",
        "12",
        "+3",
        "1_0",
        "0x1f",
        "1e3",
        "~",
        "null",
        "yes",
        "No",
        "on",
        "true",
        "*a",
        "&a",
        "!!str",
        "<<",
        "key",
        "a b",
        "😀",
    ]
)
_RAW = st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=6).map("".join)
_KEY = st.sampled_from(["k", "no", "tags", "x-y", "_a", '"q k"', '"a\\"b"', "Key", "On", "a b", "1", '"k"'])
_QUOTED = st.tuples(_RAW, st.booleans()).map(lambda tb: json.dumps(tb[0], ensure_ascii=tb[1]))


_WRITTEN = st.one_of(
    st.tuples(_KEY, _QUOTED).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(_KEY, st.integers(-(10**6), 10**6)).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(_KEY, st.lists(_QUOTED, max_size=3)).map(
        lambda kv: "\n".join([f"{kv[0]}:" if kv[1] else f"{kv[0]}: []"] + [f"  - {item}" for item in kv[1]])
    ),
)
_ODD = st.one_of(
    st.tuples(_KEY, _RAW).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    _RAW.map(lambda raw: f"  - {raw}"),
    st.sampled_from(["tags:", "", "seen: 012", "n: -0", " k: 1", "k:1", "k: 1 ", '  -  "x"', "# c", "---"]),
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(_WRITTEN, _WRITTEN, _WRITTEN, _ODD), max_size=5))
def test_frontmatter_read_without_yaml_is_what_yaml_reads(lines):
    """Whatever ``written_fields`` takes, PyYAML reads as the same values (else it leaves the head to PyYAML)."""
    head = "\n" + "\n".join(lines) + "\n"
    fields = markdown.written_fields(head)
    if fields is None:
        return
    assert typed(fields) == typed(yaml.safe_load(head) or {}), head


def test_a_memory_automem_wrote_is_read_without_yaml(tmp_path):
    import subprocess
    import sys

    from automem.store.memories import Memory

    memory = Memory(type="preference", summary='Say "x" \\ é', content="Body", tags=["a", "b:c"], seen=3)
    path = tmp_path / "m.md"
    path.write_text(memory.render(), encoding="utf-8")
    code = (
        "import sys; from pathlib import Path; from automem.store.memories import parse\n"
        f"m = parse(Path({str(path)!r})); print(m.summary == {memory.summary!r}, m.tags, m.seen, 'yaml' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "['a',", "'b:c']", "3", "False"], done.stderr
