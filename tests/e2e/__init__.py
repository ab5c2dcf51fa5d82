"""End-to-end tests against the real clients (pytest -m e2e)."""
