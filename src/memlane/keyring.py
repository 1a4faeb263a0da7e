"""API keys: minting, checking and revoking; roles and permissions are data in ``access``.

A key reads ``ml_<id>_<secret>``: the public ``id`` finds the stored row, the secret is
compared by its SHA-256 in constant time. The full key is shown once, when it is made.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from memlane.access import ROLES, ApiKey, Role
from memlane.errors import InvalidInput
from memlane.storage.base import KeyStore
from memlane.timeutil import Clock, checked_now, to_micros
from memlane.validation import name, optional_name, optional_text

PREFIX = "ml"
_ID_BYTES = 6
_SECRET_BYTES = 32
_KEY = re.compile(r"ml_([0-9a-f]{12})_([A-Za-z0-9_-]{16,128})")

MAX_KEY_LABEL_CHARS = 200
"""Longest label of an API key."""


def hash_secret(secret: str) -> str:
    """The stored form of a key's secret (SHA-256, hex)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_key(token: str) -> tuple[str, str] | None:
    """Split a presented key into ``(id, secret)``; ``None`` if it is not shaped like one."""
    match = _KEY.fullmatch(token)
    return None if match is None else (match.group(1), match.group(2))


def check_role(role: str) -> Role:
    """``role`` as a :data:`~memlane.access.Role`.

    Raises:
        InvalidInput: not one of the roles.
    """
    for known in ROLES:
        if role == known:
            return known
    raise InvalidInput("role", f"must be one of {', '.join(ROLES)}, got {role!r}")


class KeyRing:
    """The API keys of one database, over a :class:`~memlane.storage.base.KeyStore`.

    Example:
        >>> ring = KeyRing(backend.keys, clock)  # doctest: +SKIP
        >>> record, key = ring.create("acme", "agent")  # doctest: +SKIP
        >>> ring.authenticate(key) == record  # doctest: +SKIP
        True
    """

    def __init__(self, store: KeyStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def create(self, tenant: str, role: str, label: str | None = None) -> tuple[ApiKey, str]:
        """Mint a key for ``tenant`` with ``role``; returns the record and the key itself.

        Raises:
            InvalidInput: an empty tenant, an unknown role, a label that is not a string.
        """
        name("tenant", tenant)
        optional_text("label", label, MAX_KEY_LABEL_CHARS)
        key_id = secrets.token_hex(_ID_BYTES)
        secret = secrets.token_urlsafe(_SECRET_BYTES)
        record = ApiKey(
            id=key_id,
            tenant=tenant,
            role=check_role(role),
            secret_hash=hash_secret(secret),
            created_at=checked_now(self._clock),
            label=label,
        )
        self._store.put_key(record)
        return record, f"{PREFIX}_{key_id}_{secret}"

    def authenticate(self, token: str) -> ApiKey | None:
        """The active key ``token`` names, or ``None`` (malformed, unknown, wrong or revoked)."""
        parsed = parse_key(token)
        if parsed is None:
            return None
        key_id, secret = parsed
        record = self._store.key(key_id)
        # Hash even for an unknown id, so timing tells nothing about which ids exist.
        presented = hash_secret(secret)
        expected = record.secret_hash if record is not None else hash_secret("")
        if not hmac.compare_digest(presented, expected) or record is None:
            return None
        return record if record.active else None

    def list(self, tenant: str | None = None) -> list[ApiKey]:
        """The keys of ``tenant`` (``None``: every tenant), oldest first."""
        return self._store.keys(optional_name("tenant", tenant))

    def revoke(self, key_id: str, tenant: str | None = None) -> ApiKey | None:
        """Revoke a key (only of ``tenant``, if given); ``None`` if there is no such key."""
        name("key_id", key_id)
        optional_name("tenant", tenant)
        return self._store.revoke(key_id, tenant, now=to_micros(checked_now(self._clock)))
