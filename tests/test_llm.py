"""Model synthesis against real HTTP servers on 127.0.0.1 speaking each API's wire format.

The Anthropic server answers POST /v1/messages like the Messages API; the Ollama server answers
POST /api/chat like Ollama. Both record every request (path, headers, body) so the tests can
check what left the machine: the model, the auth headers, and no secret.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from automem import consent
from automem.demo import write_transcript
from automem.extract.pipeline import extract
from automem.home import Home
from automem.llm import retry
from automem.llm.schema import parse_memories

API_KEY = "sk-ant-api03-TESTKEY-abcdefghijklmnopqrstuvwxyz0123456789"
PLANTED = "ghp_4f9Qx7LmN2pR8sT1vW3yZ5aB6cD0eF9gH2jK"
GOOD = {
    "memories": [
        {
            "type": "pattern",
            "summary": "pytest needs PYTHONPATH=src here: ModuleNotFoundError for demoapp otherwise",
            "content": "Running pytest without PYTHONPATH=src fails to import demoapp; PYTHONPATH=src pytest -q works.",
            "why": "Hit ModuleNotFoundError twice; the PYTHONPATH fix worked.",
            "how_to_apply": "Prefix pytest with PYTHONPATH=src.",
            "scope": "project",
            "tags": ["error", "confirmation"],
        },
        {"type": "nonsense", "summary": "dropped: not a memory type", "content": "x"},
    ]
}


class Recorder(ThreadingHTTPServer):
    def __init__(self, replies):
        super().__init__(("127.0.0.1", 0), Handler)
        self.replies = list(replies)  # (status, body dict) per request; the last one repeats
        self.requests: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's naming
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        server: Recorder = self.server  # type: ignore[assignment]
        server.requests.append(
            {
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "raw": raw.decode("utf-8", "replace"),
                "body": json.loads(raw or b"{}"),
            }
        )
        status, body = server.replies[0] if len(server.replies) == 1 else server.replies.pop(0)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def serve():
    servers = []

    def start(replies):
        server = Recorder(replies)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    monkeypatch.setattr(retry, "BASE_DELAY", 0.01)


def anthropic_reply(payload: dict) -> dict:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": json.dumps(payload)}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 812, "output_tokens": 95},
    }


def ollama_reply(payload: dict) -> dict:
    return {
        "model": "qwen2.5:0.5b",
        "created_at": "2026-01-05T10:00:00Z",
        "message": {"role": "assistant", "content": json.dumps(payload)},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 700,
        "eval_count": 80,
    }


@pytest.fixture
def session(tmp_path, automem_home, monkeypatch):
    """A consented home and a small transcript whose prompt carries a planted secret."""
    automem_home.mkdir(parents=True)
    consent.write(automem_home, "yes")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    write_transcript(transcript, str(project))
    text = transcript.read_text().replace("run the unit tests of demoapp", f"run the unit tests with token {PLANTED}")
    transcript.write_text(text)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    return Home(automem_home), transcript


def _run(home, transcript):
    return extract(home, session_id="llm-session", transcript=transcript)


def test_anthropic_messages_api_request_and_validated_memories(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(200, anthropic_reply(GOOD))])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    result = _run(home, transcript)
    assert len(server.requests) == 1
    request = server.requests[0]
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == API_KEY
    assert request["headers"]["anthropic-version"] == "2023-06-01"
    assert request["body"]["model"] == "claude-haiku-4-5-20251001"
    assert request["body"]["messages"][0]["role"] == "user" and request["body"]["max_tokens"] > 0
    assert "ModuleNotFoundError" in request["raw"]  # the session digest went out...
    assert PLANTED not in request["raw"]  # ...redacted
    assert [m.summary for m in result.stored] == [GOOD["memories"][0]["summary"]]  # the invalid one dropped
    log = (home.root / "log" / "automem.log").read_text()
    assert "input_tokens=812" in log and "output_tokens=95" in log and "cost_usd=0.001287" in log


def test_anthropic_429_then_success_is_retried(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(429, {"type": "error", "error": {"type": "rate_limit_error"}}), (200, anthropic_reply(GOOD))])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    result = _run(home, transcript)
    assert len(server.requests) == 2
    assert result.stored[0].summary == GOOD["memories"][0]["summary"]


def test_anthropic_5xx_every_time_falls_back_to_the_rules(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(529, {"type": "error", "error": {"type": "overloaded_error"}})])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    result = _run(home, transcript)
    assert len(server.requests) == retry.ATTEMPTS
    assert {m.type for m in result.stored} == {"pattern", "decision", "preference"}  # deterministic ones


def test_a_reply_that_fails_the_schema_is_dropped(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(200, anthropic_reply({"memories": [{"type": "pattern", "summary": "x" * 300, "content": "c"}]}))])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    result = _run(home, transcript)
    assert len(server.requests) == 1
    assert {m.type for m in result.stored} == {"pattern", "decision", "preference"}


def test_ollama_chat_api(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(200, ollama_reply(GOOD))])
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "ollama:qwen2.5:0.5b")
    result = _run(home, transcript)
    assert len(server.requests) == 1
    request = server.requests[0]
    assert request["path"] == "/api/chat"
    assert request["body"]["model"] == "qwen2.5:0.5b"
    assert request["body"]["format"] == "json"
    assert [m["role"] for m in request["body"]["messages"]] == ["system", "user"]
    assert PLANTED not in request["raw"] and API_KEY not in request["raw"]
    assert "x-api-key" not in request["headers"]
    assert [m.summary for m in result.stored] == [GOOD["memories"][0]["summary"]]


def test_no_model_call_without_consent_or_without_a_model(serve, session, monkeypatch):
    home, transcript = session
    server = serve([(200, anthropic_reply(GOOD))])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "off")
    assert _run(home, transcript).stored  # rules only
    consent.write(home.root, "no")
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    assert _run(home, transcript).skipped.startswith("no consent")
    assert server.requests == []


def test_schema_parser_reads_fenced_json_and_rejects_bad_items():
    text = "Here you go:\n```json\n" + json.dumps(GOOD) + "\n```"
    items = parse_memories(text)
    assert [i["type"] for i in items] == ["pattern"]
    assert parse_memories("not json at all") == []


def test_a_model_lesson_restating_a_rule_is_confirmed_and_its_own_ideas_wait():
    from automem.extract.pipeline import confirm
    from automem.schema import Candidate

    found = [
        Candidate(
            kind="pattern",
            summary="make docs fails with theme not found (2x); not resolved in the session",
            content="make docs failed twice with: theme not found",
            why="",
            how_to_apply="",
        ),
        Candidate(
            kind="decision",
            summary="Use pnpm, not npm, in this repo",
            content="The user said so",
            why="",
            how_to_apply="",
            promotion="instruction",
        ),
    ]
    better = [
        Candidate(
            kind="pattern",
            summary="make docs fails: theme not found (the theme checkout is missing)",
            content="make docs failed twice with: theme not found",
            why="",
            how_to_apply="",
        ),
        Candidate(
            kind="decision",
            summary="Use pnpm, not npm, in this repo",
            content="The user said so",
            why="",
            how_to_apply="",
        ),
        Candidate(
            kind="observation",
            summary="The project probably targets Node 20 everywhere",
            content="guess",
            why="",
            how_to_apply="",
        ),
    ]
    assert [c.promotion for c in confirm(better, found)] == ["model", "instruction", ""]


def _transcript_of(path, cwd: str, prompts: list[str]) -> None:
    """A Claude Code transcript: per prompt, the user's message, a Bash call failing with the same text, an answer."""
    lines, parent = [], None
    for n, text in enumerate(prompts):
        for k, record in enumerate(
            (
                {"type": "user", "message": {"role": "user", "content": text}},
                {
                    "type": "assistant",
                    "message": {
                        "id": f"m{n}",
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": "npm test"}}
                        ],
                    },
                },
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{n}",
                                "is_error": True,
                                "content": f"Exit code 1\nError: {text}",
                            }
                        ],
                    },
                },
                {
                    "type": "assistant",
                    "message": {"id": f"m{n}b", "role": "assistant", "content": [{"type": "text", "text": "Checked."}]},
                },
            )
        ):
            uid = f"00000000-0000-4000-8000-{n * 4 + k:012d}"
            lines.append(
                {
                    "uuid": uid,
                    "parentUuid": parent,
                    "isSidechain": False,
                    "sessionId": "llm-session",
                    "timestamp": f"2026-11-01T10:{n:02d}:{k:02d}.000Z",
                    "cwd": cwd,
                    "version": "2.1.300",
                    "userType": "external",
                    **record,
                }
            )
            parent = uid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_no_red_team_shape_reaches_the_model_request(serve, session, monkeypatch):
    """One secret of every shape in tests/data/secrets_extra.jsonl (lower-case passwords, tokens as URL users,
    base64 env lines, htpasswd, JSON and hex escapes, vendor keys), each in a prompt and a failing command's output
    of a session the model is asked to read."""
    from pathlib import Path

    home, transcript = session
    rows = [
        json.loads(line) for line in (Path(__file__).parent / "data" / "secrets_extra.jsonl").read_text().splitlines()
    ]
    one_per_type = {r["type"]: r for r in rows if not r["negative"] and len(r["text"]) <= 180}
    prompts = [f"Use this config from now on: {r['text']}" for r in one_per_type.values()] + ["END-OF-CONFIG, thanks"]
    _transcript_of(transcript, str(transcript.parent / "proj"), prompts)
    server = serve([(200, anthropic_reply(GOOD))])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("AUTOMEM_MODEL", "claude-haiku-4-5-20251001")
    _run(home, transcript)
    [request] = server.requests
    assert "END-OF-CONFIG" in request["raw"], "the prompts never reached the request: the test would prove nothing"
    assert request["raw"].count("Use this config") >= len(one_per_type), "every prompt went out (redacted)"
    sent = json.dumps(request["body"], ensure_ascii=False) + request["raw"]
    leaks = [
        f"{r['type']}: {s[:12]}…"
        for r in one_per_type.values()
        for s in r["secrets"]
        if len(s) >= 6 and (s in sent or json.dumps(s)[1:-1] in sent)
    ]
    assert len(one_per_type) >= 30 and not leaks, leaks
    on_disk = "\n".join(
        p.read_text("utf-8", "replace")
        for p in home.root.rglob("*")
        if p.is_file() and p.suffix in (".md", ".json", ".jsonl", ".log")
    )
    assert not [s for r in one_per_type.values() for s in r["secrets"] if len(s) >= 6 and s in on_disk]
