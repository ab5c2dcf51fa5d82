"""harness: see DESIGN.md."""
