"""What Linux ``/proc`` says of processes: CPU ticks, process trees, resident memory, open files.

Read by ``memlane bench server`` to tell which side of a load window (the server with its
children, PostgreSQL, the clients, the rest of the machine) used the cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""CPU ticks per second, as ``/proc`` counts them."""


@dataclass
class CpuUse:
    """Cores used in one load window, by side (seconds of CPU ÷ seconds of the window)."""

    machine: float = 0.0
    server: float = 0.0
    server_main: float = 0.0  # of ``server``, the server's own process (its one interpreter)
    postgres: float = 0.0
    clients: float = 0.0

    @property
    def chain(self) -> float:
        """The cores the measured sides used: server, database and clients."""
        return self.server + self.postgres + self.clients


@dataclass(frozen=True)
class Snapshot:
    """CPU counters at one moment: the machine's busy ticks and each side's by process."""

    machine_busy: int
    pid: int  # the server's own process
    server: dict[int, int]
    postgres: dict[int, int]


def machine_busy_ticks() -> int:
    """The machine's busy CPU ticks since boot: all but idle and I/O wait (``/proc/stat``)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(value) for value in fields[:8]]  # user nice system idle iowait irq softirq steal
    return sum(ticks) - ticks[3] - ticks[4]


def cpu_use(before: Snapshot, after: Snapshot, elapsed: float) -> CpuUse:
    """Cores used between two snapshots (a process that started meanwhile counts whole)."""

    def cores(ticks: int) -> float:
        return ticks / TICK / elapsed if elapsed > 0 else 0.0

    def side(start: dict[int, int], end: dict[int, int]) -> float:
        return cores(sum(max(0, t - start.get(p, 0)) for p, t in end.items()))

    return CpuUse(
        machine=cores(after.machine_busy - before.machine_busy),
        server=side(before.server, after.server),
        server_main=cores(max(0, after.server.get(after.pid, 0) - before.server.get(after.pid, 0))),
        postgres=side(before.postgres, after.postgres),
    )


def process_ticks(pid: int) -> int:
    """User and system CPU ticks of process ``pid`` (0 if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def process_tree(root: int) -> list[int]:
    """``root`` and every process descended from it (Linux ``/proc``)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(parent, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(parents.get(pid, []))
    return found


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` (Linux ``/proc``), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError("no VmRSS")


def open_files(pid: int | str, path: str | Path) -> tuple[int, int]:
    """Handles of process ``pid`` (or ``"self"``) on the file ``path``: open to write, read only.

    SQLite's connections to a database file: the writing one, and the read-only ones
    (``/proc``'s fdinfo flags). Handles that close while they are read are not counted.
    """
    target = os.path.realpath(path)
    written = read = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.path.realpath(f"/proc/{pid}/fd/{fd}") != target:
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                flags = next(int(line.split()[1], 8) for line in info if line.startswith("flags:"))
        except (OSError, StopIteration, ValueError):
            continue
        if flags & os.O_ACCMODE == os.O_RDONLY:
            read += 1
        else:
            written += 1
    return written, read
