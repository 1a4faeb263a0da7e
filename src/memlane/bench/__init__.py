"""Benchmark suites behind ``memlane bench SUITE``: each prints a table and writes JSON.

Results have the shape ``{"suite", "params", "systems": {SYSTEM: {METRIC: {GROUP: value}}}}``
so that memlane and its baselines compare side by side.
"""
