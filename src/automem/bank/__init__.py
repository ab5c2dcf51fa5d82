"""bank: see DESIGN.md."""
