"""index: see DESIGN.md."""
