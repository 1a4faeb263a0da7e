"""Shared plumbing of the benchmark suites: timing, percentiles, the table and the JSON."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlane.tables import table


@dataclass
class Results:
    """Metrics of one suite run: ``systems[system][metric][group] = value``."""

    suite: str
    params: dict[str, Any]
    systems: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def put(self, system: str, metric: str, group: str, value: float) -> None:
        """Record one measurement."""
        self.systems.setdefault(system, {}).setdefault(metric, {})[group] = round(value, 3)

    def to_json(self) -> dict[str, Any]:
        """The JSON document, with the machine it ran on."""
        return {
            "suite": self.suite,
            "params": self.params | {"machine": machine()},
            "systems": self.systems,
        }

    def write(self, path: str | Path | None) -> None:
        """Write the JSON document to ``path`` (if given)."""
        if path is not None:
            Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def render(self) -> str:
        """One row per (system, metric), one column per group."""
        groups: list[str] = []
        for metrics in self.systems.values():
            for by_group in metrics.values():
                groups.extend(g for g in by_group if g not in groups)
        rows = [
            [system, metric, *(_cell(by_group.get(g)) for g in groups)]
            for system, metrics in self.systems.items()
            for metric, by_group in metrics.items()
        ]
        return table(["system", "metric", *groups], rows)


def machine() -> dict[str, Any]:
    """The machine a result was measured on: CPU model, cores, Python, OS, and its load.

    The load average says how busy the machine was: other work on it slows every number.
    """
    found: dict[str, Any] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    if hasattr(os, "getloadavg"):
        found["load_average"] = [round(load, 2) for load in os.getloadavg()]
    return found


def _cpu_model() -> str:
    """``model name`` from ``/proc/cpuinfo`` (Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def latencies_us(call: Callable[[int], object], count: int) -> list[float]:
    """Time ``call(i)`` for ``i in range(count)``, in microseconds each."""
    samples = []
    clock = time.perf_counter_ns
    for i in range(count):
        start = clock()
        call(i)
        samples.append((clock() - start) / 1000)
    return samples


def percentile(samples: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (0.5 = median) of ``samples``."""
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=1000, method="inclusive")[int(fraction * 1000) - 1]
