"""Grouped bar charts of a suite's results (matplotlib: the optional ``memlane[bench]``)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memlane.bench.report import Results


def pyplot() -> Any:
    """``matplotlib.pyplot`` drawing to files (Agg), or ``None`` without matplotlib."""
    try:
        matplotlib = importlib.import_module("matplotlib")
        matplotlib.use("Agg")
        return importlib.import_module("matplotlib.pyplot")
    except ImportError:
        return None


def grouped_bars(
    results: Results,
    metrics: Sequence[str],
    groups: Sequence[str],
    path: str | Path,
    *,
    title: str,
    ylim: tuple[float, float] | None = (0.0, 1.05),
) -> bool:
    """One panel per metric, one bar per system in each group; ``False`` without matplotlib.

    matplotlib is imported here only, so the suites run without it.
    """
    plt = pyplot()
    if plt is None:
        return False
    systems = list(results.systems)
    figure, axes = plt.subplots(
        1, len(metrics), figsize=(max(5, 1.2 * len(groups)) * len(metrics), 4), squeeze=False
    )
    width = 0.8 / max(1, len(systems))
    for axis, metric in zip(axes[0], metrics, strict=True):
        for n, system in enumerate(systems):
            values = [results.systems[system].get(metric, {}).get(g, 0.0) for g in groups]
            axis.bar([x + n * width for x in range(len(groups))], values, width, label=system)
        axis.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(groups))], groups)
        axis.set_title(metric)
        if ylim is not None:
            axis.set_ylim(*ylim)
    axes[0][0].legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True
