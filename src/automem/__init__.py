"""automem: memory for coding agents, kept as Markdown on the user's own disk.

This package's __init__ stays empty on purpose: the capture hook imports
``automem.capture`` on every tool call, and anything imported here would be
paid for on that hot path.
"""

__version__ = "0.1.0"
