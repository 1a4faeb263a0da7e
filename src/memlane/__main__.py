"""``python -m memlane``: the same as the ``memlane`` command."""

from memlane.cli import main

if __name__ == "__main__":
    main()
