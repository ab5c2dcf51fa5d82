"""The hot path: hook payload -> spool line.

Everything under this package imports only the standard library (and the
stdlib-only fast redaction tier), so a hook costs little more than starting
Python. ``tests/test_capture_imports.py`` holds it to that.
"""
