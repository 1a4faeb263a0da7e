"""Privacy: the active, audit and compliance views; logical deletion and physical purge."""
