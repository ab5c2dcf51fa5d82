"""Secrets out, before anything is written: a fast stdlib tier and the full pass."""
