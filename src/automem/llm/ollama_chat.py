"""A local Ollama through the official client: POST {OLLAMA_HOST}/api/chat."""

from __future__ import annotations

import os

from automem.llm.retry import RetryableError, with_retries


class LLMError(RuntimeError):
    pass


def call(system: str, user: str, *, model: str, timeout: float) -> tuple[str, dict]:
    import ollama

    host = os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
    client = ollama.Client(host=host, timeout=timeout)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def attempt():
        try:
            return client.chat(model=model, messages=messages, format="json", stream=False)
        except ollama.ResponseError as exc:
            if exc.status_code == 429 or exc.status_code >= 500:
                raise RetryableError(str(exc)) from None
            raise LLMError(f"Ollama answered HTTP {exc.status_code}: {exc.error}") from None

    reply = with_retries(attempt)
    text = reply["message"]["content"] if reply.get("message") else ""
    usage = {
        "input_tokens": int(reply.get("prompt_eval_count") or 0),
        "output_tokens": int(reply.get("eval_count") or 0),
        "cost_usd": 0.0,
    }
    return text, usage
