"""llm: see DESIGN.md."""
