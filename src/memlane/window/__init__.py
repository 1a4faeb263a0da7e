"""The window lane: the last N rounds of a session, verbatim, never persisted."""
