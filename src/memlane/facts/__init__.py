"""The exact lane: bi-temporal facts (see BITEMPORAL.md)."""
