"""The Anthropic Messages API over httpx: POST {ANTHROPIC_BASE_URL}/v1/messages."""

from __future__ import annotations

import os

from automem.llm.retry import with_retries

API_VERSION = "2023-06-01"
DEFAULT_BASE = "https://api.anthropic.com"
PRICE_PER_MTOK = {"haiku": (1.0, 5.0)}  # (input, output) US$ per million tokens


class LLMError(RuntimeError):
    pass


def call(system: str, user: str, *, model: str, timeout: float, max_tokens: int = 1500) -> tuple[str, dict]:
    """(reply text, usage {input_tokens, output_tokens, cost_usd}); LLMError when it cannot."""
    import httpx

    key = os.environ.get("ANTHROPIC_API_KEY", "")
    if not key:
        raise LLMError("ANTHROPIC_API_KEY is not set")
    base = (os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE).rstrip("/")
    body = {"model": model, "max_tokens": max_tokens, "system": system, "messages": [{"role": "user", "content": user}]}
    headers = {"x-api-key": key, "anthropic-version": API_VERSION, "content-type": "application/json"}

    def attempt() -> httpx.Response:
        with httpx.Client(timeout=timeout) as client:
            return client.post(f"{base}/v1/messages", json=body, headers=headers)

    response = with_retries(attempt, status_of=lambda r: r.status_code, retry_after=_retry_after)
    if response.status_code != 200:
        raise LLMError(f"Anthropic API answered HTTP {response.status_code}")
    data = response.json()
    text = "".join(
        b.get("text", "") for b in data.get("content", []) if isinstance(b, dict) and b.get("type") == "text"
    )
    usage = data.get("usage") or {}
    tokens_in, tokens_out = int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0)
    price_in, price_out = PRICE_PER_MTOK["haiku"]
    cost = tokens_in * price_in / 1e6 + tokens_out * price_out / 1e6
    return text, {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost_usd": round(cost, 6)}


def _retry_after(response) -> float | None:
    try:
        return float(response.headers.get("retry-after"))
    except (TypeError, ValueError):
        return None
