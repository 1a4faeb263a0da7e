"""API keys and roles, re-exported from their neutral home :mod:`memlane.access`."""

from __future__ import annotations

from memlane.access import ROLE_PERMISSIONS, ROLES, ApiKey, Permission, Role

__all__ = ["ROLES", "ROLE_PERMISSIONS", "ApiKey", "Permission", "Role"]
