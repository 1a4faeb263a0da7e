"""Who may do what: API key roles, their permissions, and a stored key (plain data).

Shared by storage (which keeps keys), the HTTP and MCP adapters (which check them) and the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

Role = Literal["agent", "auditor", "compliance", "admin"]
Permission = Literal["read", "write", "audit", "compliance", "keys"]

ROLES: tuple[Role, ...] = ("agent", "auditor", "compliance", "admin")
"""Every role, from the least to the most privileged."""

ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    # The active view: fact reads, recall, remember, sessions.
    "agent": frozenset({"read", "write"}),
    # + the audit view (every version, deleted ones flagged).
    "auditor": frozenset({"read", "write", "audit"}),
    # + the compliance view, forget and purge.
    "compliance": frozenset({"read", "write", "audit", "compliance"}),
    # + managing the tenant's keys.
    "admin": frozenset({"read", "write", "audit", "compliance", "keys"}),
}
"""What each role may do; each role includes the one before it."""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored API key: its public id, tenant, role and the hash of its secret.

    The secret itself is never stored; ``secret_hash`` is the SHA-256 of it (hex).
    """

    id: str
    tenant: str
    role: Role
    secret_hash: str
    created_at: datetime
    revoked_at: datetime | None = None
    label: str | None = None

    @property
    def active(self) -> bool:
        """True until the key is revoked."""
        return self.revoked_at is None

    def allows(self, permission: Permission) -> bool:
        """True if this key's role grants ``permission``."""
        return permission in ROLE_PERMISSIONS[self.role]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict without the hash (it is no one's business)."""
        return {
            "id": self.id,
            "tenant": self.tenant,
            "role": self.role,
            "label": self.label,
            "created_at": self.created_at.isoformat(),
            "revoked_at": None if self.revoked_at is None else self.revoked_at.isoformat(),
        }
