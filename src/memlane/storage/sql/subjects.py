"""The subjects a tenant holds live data about, filtered and paged, on one SQL database."""

from __future__ import annotations

from typing import Any

from memlane.storage.base import SubjectPage
from memlane.storage.sql.dialect import SQLStore

# The tables whose rows name a subject an agent can read about (what ``known_subject`` asks).
_SUBJECT_TABLES = ("facts", "summaries", "notes")


def like_escaped(text: str) -> str:
    r"""``text`` as a ``LIKE`` pattern matching itself (``\`` escapes ``%``, ``_`` and ``\``).

    >>> like_escaped("50%_off")
    '50\\%\\_off'
    """
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def ascii_lower(text: str) -> str:
    """``text`` with only the ASCII letters lower-cased, as :meth:`Dialect.ascii_lower` does."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


class SQLSubjectStore(SQLStore):
    """The directory of subjects of every tenant of one SQL database."""

    def subjects(
        self, tenant: str, *, prefix: str | None, contains: str | None, limit: int, offset: int
    ) -> SubjectPage:
        """One page of the union of the live subjects of each table, and its count."""
        where, parameters = self._filter(prefix, contains)
        live = " UNION ".join(
            f"SELECT subject FROM {table} WHERE tenant = %s AND deleted_at IS NULL"
            for table in _SUBJECT_TABLES
        )
        held = f"({live}) AS held WHERE {where}"
        scoped: list[Any] = [tenant] * len(_SUBJECT_TABLES) + parameters
        total = self.db.fetchone(f"SELECT count(*) FROM {held}", scoped)[0]
        rows = self.db.fetchall(
            f"SELECT subject FROM {held} ORDER BY {self.dialect.bytewise('subject')} "
            "LIMIT %s OFFSET %s",
            [*scoped, limit, offset],
        )
        return SubjectPage([row[0] for row in rows], int(total))

    def _filter(self, prefix: str | None, contains: str | None) -> tuple[str, list[Any]]:
        conditions, parameters = ["TRUE"], []
        if prefix is not None:
            conditions.append("substr(subject, 1, %s) = %s")
            parameters += [len(prefix), prefix]
        if contains is not None:
            conditions.append(f"{self.dialect.ascii_lower('subject')} LIKE %s ESCAPE '\\'")
            parameters.append(f"%{like_escaped(ascii_lower(contains))}%")
        return " AND ".join(conditions), parameters
