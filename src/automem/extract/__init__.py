"""extract: see DESIGN.md."""
