"""automem: memory for coding agents, kept as Markdown on the user's own disk.

This package's __init__ imports nothing on purpose: the capture hook imports ``automem.capture``
on every tool call, and anything imported here would be paid for on that hot path. The Python API
(``from automem import Memory``) is loaded on first use through the module ``__getattr__``.
"""

__version__ = "0.1.0"
__all__ = ["Memory"]


def __getattr__(name: str):
    if name == "Memory":
        from automem.api import Memory

        return Memory
    raise AttributeError(f"module 'automem' has no attribute {name!r}")
