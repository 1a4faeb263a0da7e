"""API keys for the HTTP API: the key ring is :mod:`memlane.keyring`, reached as ``Memory.keys``."""

from memlane.keyring import (
    MAX_KEY_LABEL_CHARS,
    PREFIX,
    KeyRing,
    check_role,
    hash_secret,
    parse_key,
)

__all__ = ["MAX_KEY_LABEL_CHARS", "PREFIX", "KeyRing", "check_role", "hash_secret", "parse_key"]
