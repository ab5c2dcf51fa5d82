"""A scripted model server on 127.0.0.1: Anthropic Messages and OpenAI Responses, streamed as SSE.

The real clients (Claude Code, Codex) are pointed at it. Every request is recorded
(path, headers, JSON body); each reply comes from ``responder(kind, body)``, which
returns a list of blocks: ``("text", str)`` or ``("tool", name, input_dict)``.
``kind`` is "anthropic" or "openai". The responder decides from the request itself
(how many tool results it already carries), so side requests a client makes
(titles, warm-ups) never shift the script.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Block = tuple
Responder = Callable[[str, dict], list]


class Recorded:
    def __init__(self, method: str, path: str, headers: dict, body: object):
        self.method, self.path, self.headers, self.body = method, path, headers, body

    @property
    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


class ModelServer:
    """``with ModelServer(responder) as server: server.url``; ``server.requests`` is every request seen."""

    def __init__(self, responder: Responder):
        self.responder = responder
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "ModelServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def record(self, item: Recorded) -> None:
        with self.lock:
            self.requests.append(item)

    def model_requests(self) -> list[Recorded]:
        with self.lock:
            return [
                r
                for r in self.requests
                if r.method == "POST" and isinstance(r.body, dict) and ("messages" in r.body or "input" in r.body)
            ]

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()


def _handler(server: ModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _body(self) -> object:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.headers.get("Content-Encoding") == "zstd" or not raw:
                return raw.decode("latin-1") if raw else None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _json(self, status: int, obj: object) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self) -> None:
            server.record(Recorded("HEAD", self.path, dict(self.headers), None))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            server.record(Recorded("GET", self.path, dict(self.headers), None))
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"data": [], "object": "list", "models": []})
            else:
                self._json(200, {})

        def do_POST(self) -> None:
            body = self._body()
            server.record(Recorded("POST", self.path, dict(self.headers), body))
            path = self.path.split("?")[0]
            if not isinstance(body, dict):
                self._json(200, {})
            elif path.endswith("/count_tokens"):
                self._json(200, {"input_tokens": 100})
            elif path.endswith("/messages"):
                blocks = server.responder("anthropic", body)
                if body.get("stream"):
                    self._sse(_anthropic_events(blocks, body.get("model", "claude")))
                else:
                    self._json(200, _anthropic_message(blocks, body.get("model", "claude")))
            elif path.endswith("/responses"):
                self._sse(_openai_events(server.responder("openai", body), body.get("model", "gpt")))
            else:
                self._json(404, {"error": {"type": "not_found", "message": path}})

        def _sse(self, events: list[tuple[str, dict]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

    return Handler


# ---------------------------------------------------------------- Anthropic Messages


def _anthropic_content(blocks: list) -> list[dict]:
    out = []
    for block in blocks:
        if block[0] == "text":
            out.append({"type": "text", "text": block[1]})
        else:
            out.append(
                {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": block[1], "input": block[2]}
            )
    return out


def _usage() -> dict:
    return {"input_tokens": 120, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def _anthropic_message(blocks: list, model: str) -> dict:
    content = _anthropic_content(blocks)
    stop = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
    return {
        "id": f"msg_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(),
    }


def _anthropic_events(blocks: list, model: str) -> list[tuple[str, dict]]:
    message = _anthropic_message(blocks, model)
    start = {**message, "content": [], "stop_reason": None}
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": block["text"]},
                    },
                )
            )
        else:
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                    },
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# ---------------------------------------------------------------- OpenAI Responses


def _openai_events(blocks: list, model: str) -> list[tuple[str, dict]]:
    rid = f"resp_{uuid.uuid4().hex[:20]}"
    base = {"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []}
    events = [("response.created", {"type": "response.created", "response": base})]
    items = []
    for index, block in enumerate(blocks):
        if block[0] == "text":
            item = {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex[:16]}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": block[1], "annotations": []}],
            }
            events.append(
                (
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "output_index": index,
                        "item": {**item, "content": [], "status": "in_progress"},
                    },
                )
            )
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "output_index": index,
                        "content_index": 0,
                        "item_id": item["id"],
                        "delta": block[1],
                    },
                )
            )
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:16]}",
                "status": "completed",
                "name": block[1],
                "arguments": json.dumps(block[2]),
                "call_id": f"call_{uuid.uuid4().hex[:16]}",
            }
            events.append(
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": index, "item": item},
                )
            )
        events.append(
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item})
        )
        items.append(item)
    done = {
        **base,
        "status": "completed",
        "output": items,
        "usage": {
            "input_tokens": 120,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 140,
        },
    }
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events
