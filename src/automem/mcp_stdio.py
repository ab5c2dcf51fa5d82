"""``automem mcp``: an MCP server over stdio in the standard library (newline-delimited JSON-RPC 2.0).

It speaks what a tools-only server needs: ``initialize`` (protocol version negotiation), ``ping``,
``tools/list`` and ``tools/call``; notifications get no reply; an unknown method is -32601, bad params
-32602, a line that is not JSON -32700, a malformed message -32600. Messages are handled one at a time,
in the order they arrive, so a tool call ends before the next message is read. The end of stdin ends
the server.

Tools are declared as data: each one a ``tools/list`` entry (name, title, description, inputSchema,
outputSchema, annotations) plus a handler ``handler(arguments, client_info) -> dict``. The arguments a
handler gets are checked against the tool's inputSchema first and completed with its defaults, with
the same lenient conversions pydantic's lax mode makes (``"5"`` for an integer, ``"true"`` for a
boolean, a JSON array sent as a string); a handler raises :class:`ToolError` to refuse a call with a
message for the model. Both outcomes become a tool result (``isError``), not a JSON-RPC error.

automem's tools: their entries, the server's name and instructions are data/mcp_tools.json (written by
automem.mcp_sdk from the tools declared with the official MCP SDK); the handlers are
automem.mcp_server.HANDLERS, imported on the first tool call. Until then the server imports nothing
but json, os and sys, and reads nothing from the memory tree: ``initialize`` and ``tools/list`` are
answered in about the time of a bare Python start.

Nothing here writes to stdout but the protocol: serving real stdio moves file descriptor 1 onto stderr
for everything else in the process (prints, child processes).
"""

from __future__ import annotations

import json
import os
import sys

PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # oldest to newest
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]
TOOLS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mcp_tools.json")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# the JSON Schema keywords check_arguments understands; a tool schema using any other one is refused
SCHEMA_KEYWORDS = frozenset(
    {
        "type",
        "anyOf",
        "enum",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "items",
        "default",
        "title",
        "description",
    }
)
OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "title", "additionalProperties"})
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
# what pydantic strips around a number: Unicode White_Space (Python's str.strip also takes \x1c-\x1f)
_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_DIGITS = frozenset("0123456789_")
_INT_RANGE = 2**63  # a float converts to an integer only inside the 64-bit range, as in pydantic


class ToolError(Exception):
    """A tool call refused with a message the model reads (an ``isError`` result)."""


class ArgumentsError(ToolError):
    """Tool arguments that do not fit the inputSchema; ``fields`` names the bad ones."""

    def __init__(self, message: str, fields: list[str]) -> None:
        super().__init__(message)
        self.fields = fields


class _Invalid(Exception):
    """One argument that does not fit its schema; the message says what it should be.

    A value of the wrong type carries what was expected (``an integer``) and the value, so that a
    union can say every type it takes; a value that breaks a constraint carries only its message.
    """

    def __init__(self, message: str, expected: str = "", value=None) -> None:
        super().__init__(message)
        self.expected, self.value = expected, value


def _wrong_type(expected: str, value) -> _Invalid:
    return _Invalid(f"should be {expected}, not {_shown(value)}", expected, value)


# ---------------------------------------------------------------- arguments against an inputSchema


def check_arguments(schema: dict, arguments: dict) -> dict:
    """The arguments completed with the schema's defaults; raises ArgumentsError listing every bad one."""
    properties = schema.get("properties") or {}
    required = schema.get("required") or ()
    out, problems, fields = {}, [], []
    for name, prop in properties.items():
        if name not in arguments:
            if name in required:
                problems.append(f"{name}: required, not given")
                fields.append(name)
            else:
                out[name] = _copy(prop.get("default"))
            continue
        value = arguments[name]
        if isinstance(value, str) and not _plain_string(prop):
            value = _pre_parse(value)
        try:
            out[name] = _check(prop, value)
        except _Invalid as exc:
            problems.append(f"{name}: {exc}")
            fields.append(name)
    if problems:
        count = f"{len(problems)} invalid argument{'s' if len(problems) > 1 else ''}"
        raise ArgumentsError(f"{count}: " + "; ".join(problems), fields)
    return out  # arguments the schema does not name are dropped, as pydantic ignores extra fields


def schema_keywords(schema: dict) -> set[str]:
    """Every keyword an inputSchema uses below its properties (to hold them to SCHEMA_KEYWORDS)."""
    found: set[str] = set()

    def walk(node: dict) -> None:
        found.update(node)
        for alternative in node.get("anyOf") or ():
            walk(alternative)
        if isinstance(node.get("items"), dict):
            walk(node["items"])

    for prop in (schema.get("properties") or {}).values():
        walk(prop)
    return found


def _plain_string(prop: dict) -> bool:
    """A bare string parameter: its value is never read as JSON."""
    return prop.get("type") == "string" and "enum" not in prop


def _pre_parse(value: str):
    """A JSON array, object or null sent as a string stands for itself (clients that stringify arguments)."""
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return value
    return value if isinstance(parsed, (str, int, float)) else parsed


def _copy(value):
    return list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value


def _check(prop: dict, value):
    alternatives = prop.get("anyOf")
    if alternatives:
        kinds = [a.get("type") for a in alternatives]
        if value is None and "null" in kinds:
            return None
        failures = []
        for alternative in alternatives:
            if alternative.get("type") == "null":
                continue
            try:
                return _check(alternative, value)
            except _Invalid as exc:
                failures.append(exc)
        broken = [f for f in failures if not f.expected]
        if broken:  # the value has a type the union takes but breaks that alternative's constraint
            raise broken[0]
        expected = [f.expected for f in failures] + (["null"] if "null" in kinds else [])
        raise _wrong_type(" or ".join(expected), value)
    kind = prop.get("type")
    if kind == "string":
        value = _string(prop, value)
    elif kind == "integer":
        value = _integer(prop, value)
    elif kind == "boolean":
        value = _boolean(value)
    elif kind == "array":
        value = _array(prop, value)
    elif kind == "null":
        if value is not None:
            raise _wrong_type("null", value)
    else:
        raise _Invalid(f"has a schema this server cannot check ({kind!r})")
    return value


def _string(prop: dict, value) -> str:
    if not isinstance(value, str):
        raise _wrong_type("a string", value)
    if "enum" in prop and value not in prop["enum"]:
        raise _Invalid(f"should be one of {', '.join(map(_shown, prop['enum']))}, not {_shown(value)}")
    if len(value) < prop.get("minLength", 0):
        raise _Invalid(f"should have at least {prop['minLength']} character{'s' if prop['minLength'] > 1 else ''}")
    if "maxLength" in prop and len(value) > prop["maxLength"]:
        raise _Invalid(f"should have at most {prop['maxLength']} characters, not {len(value)}")
    return value


def _integer(prop: dict, value) -> int:
    number = None
    if isinstance(value, int):  # bool included: true is 1
        number = int(value)
    elif isinstance(value, float) and value.is_integer() and -_INT_RANGE <= value < _INT_RANGE:
        number = int(value)
    elif isinstance(value, str):
        number = _int_text(value)
    if number is None:
        raise _wrong_type("an integer", value)
    if "minimum" in prop and number < prop["minimum"]:
        raise _Invalid(f"should be at least {prop['minimum']}, not {number}")
    if "maximum" in prop and number > prop["maximum"]:
        raise _Invalid(f"should be at most {prop['maximum']}, not {number}")
    return number


def _int_text(text: str) -> int | None:
    """An integer written as text: digits (underscores between them), an optional sign, an optional ``.0``."""
    whole, dot, fraction = text.strip(_SPACE).partition(".")
    if dot and (not fraction or fraction.strip("0")):
        return None  # "5.", "5.5": only a fraction of zeros is an integer
    digits = whole[1:] if whole[:1] in ("+", "-") else whole
    if not digits[:1].isdigit() or not set(digits) <= _DIGITS:
        return None
    try:
        return int(whole)
    except ValueError:  # misplaced underscores
        return None


def _boolean(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise _wrong_type("true or false", value)


def _array(prop: dict, value) -> list:
    if not isinstance(value, list):
        raise _wrong_type("a list", value)
    items = prop.get("items")
    out = []
    for index, item in enumerate(value):
        try:
            out.append(_check(items, item) if items else item)
        except _Invalid as exc:
            raise _Invalid(f"item {index} {exc}") from None
    if len(out) < prop.get("minItems", 0):
        raise _Invalid(f"should have at least {prop['minItems']} items, not {len(out)}")
    if "maxItems" in prop and len(out) > prop["maxItems"]:
        raise _Invalid(f"should have at most {prop['maxItems']} items, not {len(out)}")
    return out


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- the server


class Server:
    """One MCP session over a pair of byte streams: call :meth:`run` to serve until the input ends."""

    def __init__(self, *, name: str, version: str, instructions: str, tools: list[dict], handlers, on_crash=None):
        """``handlers``: tool name -> handler, or a function returning that mapping on the first tool call."""
        for tool in tools:
            schema = tool["inputSchema"]
            extra = (set(schema) - OBJECT_KEYWORDS) | (schema_keywords(schema) - SCHEMA_KEYWORDS)
            if extra:
                raise ValueError(f"{tool['name']}: inputSchema keywords this server cannot check: {sorted(extra)}")
        self.info = {"name": name, "version": version}
        self.instructions = instructions
        self.tools = tools
        self.schemas = {t["name"]: t["inputSchema"] for t in tools}
        self._handlers = handlers
        self.on_crash = on_crash
        self.client_info: dict = {}
        self.protocol_version: str | None = None

    # ---- transport

    def run(self, stdin, stdout) -> None:
        """Read one JSON-RPC message (or batch) per line from ``stdin``; write each reply as one line."""
        for line in stdin:
            if not line.strip():
                continue
            try:
                reply = self.handle_line(line)
            except Exception as exc:  # noqa: BLE001 - one bad message must not end the session
                self._crashed("message", exc)
                reply = _encode(_error(None, INTERNAL_ERROR, f"Internal error ({type(exc).__name__})"))
            if reply is not None:
                stdout.write(reply)
                stdout.flush()

    def handle_line(self, line: bytes | str) -> bytes | None:
        """The encoded reply line to one input line, or None (a notification, a response, an empty batch's)."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return _encode(_error(None, PARSE_ERROR, "Parse error: a line that is not JSON"))
        if isinstance(message, list):
            if not message:
                return _encode(_error(None, INVALID_REQUEST, "Invalid Request: an empty batch"))
            replies = [r for r in map(self.handle, message) if r is not None]
            return _encode(replies) if replies else None
        reply = self.handle(message)
        return None if reply is None else _encode(reply)

    # ---- JSON-RPC

    def handle(self, message) -> dict | None:
        """The reply to one decoded message, or None when it is a notification or a response."""
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON object")
        has_id = "id" in message
        ident = message.get("id")
        good_id = isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))
        method = message.get("method")
        if message.get("jsonrpc") != "2.0":
            return _error(ident if good_id else None, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
        if not has_id and isinstance(method, str):
            return None  # a notification (initialized, cancelled, progress, roots changed ...): nothing to answer
        if method is None and ("result" in message or "error" in message):
            return None  # a response; this server sends no requests, so there is nothing waiting for it
        if not good_id:
            return _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if not isinstance(method, str):
            return _error(ident, INVALID_REQUEST, "Invalid Request: method must be a string")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(ident, INVALID_PARAMS, "Invalid params: params must be an object")
        params = params or {}
        route = {
            "initialize": self.initialize,
            "ping": self.ping,
            "tools/list": self.list_tools,
            "tools/call": self.call_tool,
        }.get(method)
        if route is None:
            return _error(ident, METHOD_NOT_FOUND, "Method not found", method)
        try:
            return {"jsonrpc": "2.0", "id": ident, "result": route(params)}
        except _BadParams as exc:
            return _error(ident, INVALID_PARAMS, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug in a method must not end the session
            self._crashed(method, exc)
            return _error(ident, INTERNAL_ERROR, f"Internal error ({type(exc).__name__})")

    # ---- MCP methods

    def initialize(self, params: dict) -> dict:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise _BadParams("Invalid params: initialize needs protocolVersion (a string)")
        info = params.get("clientInfo")
        self.client_info = info if isinstance(info, dict) else {}
        self.protocol_version = requested if requested in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION
        result = {
            "protocolVersion": self.protocol_version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self.info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def ping(self, params: dict) -> dict:
        return {}

    def list_tools(self, params: dict) -> dict:
        return {"tools": self.tools}  # one page: no nextCursor

    def call_tool(self, params: dict) -> dict:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise _BadParams("Invalid params: tools/call needs the tool's name (a string)")
        if name not in self.schemas:
            raise _BadParams(f"Unknown tool: {name}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise _BadParams("Invalid params: a tool's arguments are an object")
        try:
            result = self.handlers()[name](check_arguments(self.schemas[name], arguments), self.client_info)
        except ToolError as exc:
            return _tool_error(name, str(exc))
        except Exception as exc:  # noqa: BLE001 - a crash in a tool is that call's error, not the session's end
            self._crashed(f"tool {name}", exc)
            what = f"{type(exc).__name__}: {exc}" if isinstance(exc, ImportError) else type(exc).__name__
            return _tool_error(
                name, f"unexpected {what} (logged in automem's log; `automem status` shows the last lines)"
            )
        text = json.dumps(result, indent=2, ensure_ascii=False, default=str)
        return {"content": [{"type": "text", "text": text}], "structuredContent": result, "isError": False}

    def handlers(self) -> dict:
        if callable(self._handlers):
            self._handlers = self._handlers()
        return self._handlers

    def _crashed(self, where: str, exc: BaseException) -> None:
        if self.on_crash is not None:
            try:
                self.on_crash(where, exc)
            except Exception:  # noqa: BLE001, S110 - reporting a crash must not raise another one
                pass


class _BadParams(Exception):
    """A request whose params do not fit the method (-32602)."""


def _tool_error(name: str, text: str) -> dict:
    return {"content": [{"type": "text", "text": f"Error executing tool {name}: {text}"}], "isError": True}


def _error(ident, code: int, message: str, data=None) -> dict:
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": ident, "error": error}


def _encode(message) -> bytes:
    # ASCII with \\u escapes: one line whatever the text holds (lone surrogates included), valid in any reader
    return json.dumps(message, separators=(",", ":"), default=str).encode("ascii") + b"\n"


def serve_stdio(server: Server) -> None:
    """Serve on the process's stdin and stdout until stdin ends; only protocol lines reach stdout."""
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    try:
        out_fd = os.dup(1)
    except OSError:
        out_fd = None
    if out_fd is not None:
        try:
            os.dup2(2, 1)  # fd 1 is stderr from now on, for this process and the ones it starts
            stdout = os.fdopen(out_fd, "wb")
        except OSError:
            os.close(out_fd)
    sys.stdout = sys.stderr
    try:
        server.run(stdin, stdout)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        try:
            stdout.close()
        except OSError:
            pass


# ---------------------------------------------------------------- automem's server


def load_declaration(path: str = TOOLS_FILE) -> dict:
    """data/mcp_tools.json: the server's name, its instructions and the tools/list entries."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def build_server() -> Server:
    """automem's tools over this server; automem.mcp_server is imported on the first tool call."""
    from automem import __version__

    declared = load_declaration()
    return Server(
        name=declared["name"],
        version=__version__,
        instructions=declared["instructions"],
        tools=declared["tools"],
        handlers=_automem_handlers,
        on_crash=_log_crash,
    )


def _automem_handlers() -> dict:
    from automem.mcp_server import HANDLERS

    return HANDLERS


def _log_crash(where: str, exc: BaseException) -> None:
    import traceback

    from automem.log import log_error

    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    at = " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
    log_error("mcp", f"{where}: {type(exc).__name__}: {exc} (at {at})")


def serve() -> None:
    """``automem mcp``: automem's tools over stdio until the client closes the pipe."""
    serve_stdio(build_server())
