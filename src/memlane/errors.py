"""The exceptions memlane raises: one tree, so callers can catch ``MemlaneError``."""

from __future__ import annotations


class MemlaneError(Exception):
    """Base class of every error memlane raises on purpose."""


class InvalidInput(MemlaneError, ValueError):
    """Bad input from the caller; nothing was written.

    Args:
        field: the argument or field at fault, named in the message.
        message: what is wrong with it.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class StorageError(MemlaneError):
    """The storage backend failed (locked database, broken file, unreachable server)."""


class ConflictError(StorageError):
    """A write conflicts with stored data (a constraint was violated): retrying will not help."""


class SchemaError(StorageError):
    """The database was written by a newer memlane, or its schema is damaged."""
