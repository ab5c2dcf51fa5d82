"""store: see DESIGN.md."""
