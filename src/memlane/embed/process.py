"""Documents embedded in a child process at the lowest CPU priority (``indexing="process"``).

A model call cannot be interrupted, and in the server's own process it holds a share of the
cores (and the interpreter, before and after the engine's C code) that the requests need.
:class:`EmbeddingProcess` runs the engine's *document* calls in a separate interpreter at
niceness 19 and, on Linux, ``SCHED_IDLE``: the kernel then runs it only on a core no other
task wants, so a request of any process on the machine preempts it. It shares no lock and no
interpreter with the server; what crosses is the texts and their vectors, through a pipe.

The child is a fresh interpreter (``subprocess``, not ``fork``): it inherits no database
connection, no thread and no lock of the parent, and it never imports the caller's
``__main__``. It exits when its request pipe closes (:meth:`EmbeddingProcess.close`, or the
parent dying in any way), so it cannot outlive the parent for longer than the call in flight.
One child serves every tenant of a memory: one model copy for documents, whatever the number
of tenants (queries are still embedded in the parent, on the request's path).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from memlane.embed.base import Embedder, EmbeddingError, Vectors, check_texts

log = logging.getLogger(__name__)

LOWEST_NICE = 19
"""The child's niceness (the largest there is)."""
STOP_SECONDS = 2.0
"""How long :meth:`EmbeddingProcess.close` lets the child end before killing it."""
_CHILD = f"""
import os, sys
try:  # first, before the imports: they cost CPU too (main() does it again, checked)
    os.nice({LOWEST_NICE} - os.nice(0))
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
except (AttributeError, OSError):
    pass
from memlane.embed.process import main
main(sys.argv[1:])
"""

Spec = Embedder | str | None
"""What the child builds its embedder from: a spec string (``None``: the default) or an
embedder object that can be pickled (a test's fake)."""


def supported() -> bool:
    """Whether documents can be embedded in a child process here (POSIX pipes).

    ``pass_fds`` is POSIX's, and so is ``os.fork``: its presence says where we are.
    """
    return hasattr(os, "fork")


def sendable(spec: Spec) -> bool:
    """Whether ``spec`` can be handed to a child: a spec string, or a picklable embedder."""
    if spec is None or isinstance(spec, str):
        return True
    try:
        pickle.dumps(spec)
    except Exception:  # whatever pickling raises, it cannot be sent
        return False
    return True


class EmbeddingProcess:
    """One child process that embeds documents; started on first use, restarted after a crash.

    Calls are served one at a time (the engine uses every core already). A call whose child
    dies raises :class:`~memlane.embed.EmbeddingError`, and the next call starts a new child:
    the indexer gives the batch back and retries, so its items stay pending meanwhile.

    Args:
        spec: what the child builds its embedder from (see :data:`Spec`).
        expected_name: the name the child's embedder must have (the parent's embedder's:
            vectors belong to the model that made them); read when the child starts.

    Example:
        >>> worker = EmbeddingProcess("hash:64")  # doctest: +SKIP
        >>> worker.embed_documents(["I live in Shanghai"]).shape  # doctest: +SKIP
        (1, 64)
        >>> worker.close()  # doctest: +SKIP
    """

    def __init__(self, spec: Spec, *, expected_name: Callable[[], str] | None = None) -> None:
        if not sendable(spec):
            raise EmbeddingError(f"{spec!r} cannot be sent to a worker process (not picklable)")
        self._spec = spec
        self._expected_name = expected_name
        self._calls = threading.Lock()  # one call at a time
        self._state = threading.Lock()  # guards the child's handles (close may race a call)
        self._child: subprocess.Popen[bytes] | None = None
        self._requests: Connection | None = None
        self._answers: Connection | None = None
        self._closed = False
        self.starts = 0
        """How many children were started (more than 1: some crashed or were killed)."""
        self.pid: int | None = None
        """The running child's process id, ``None`` before the first call and after close."""

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in the child; returns ``(len(texts), dim)``.

        Raises:
            EmbeddingError: the child died (the next call starts another), its embedder
                failed, or this worker was closed.
        """
        items = check_texts(texts)
        with self._calls:
            requests, answers = self._started()
            try:
                requests.send(items)
                kind, payload = answers.recv()
            except (EOFError, OSError) as error:
                status = self._reap(in_call=True)
                raise EmbeddingError(
                    f"the embedding process ended ({_ended(status)}); its items stay pending"
                ) from error
        if kind != "vectors":
            raise EmbeddingError(f"the embedding process failed: {payload}")
        return np.asarray(payload, dtype=np.float32)

    def close(self) -> None:
        """Stop the child (a call in flight raises); later calls raise. Idempotent."""
        with self._state:
            self._closed = True
        self._reap(in_call=False)

    # -- the child's life -----------------------------------------------------------------

    def _started(self) -> tuple[Connection, Connection]:
        with self._state:
            if self._closed:
                raise EmbeddingError("the embedding process was closed")
            if self._child is not None and self._requests and self._answers:
                return self._requests, self._answers
        requests, answers = self._spawn()
        return requests, answers

    def _spawn(self) -> tuple[Connection, Connection]:
        """Start a child, hand it the spec and wait for it to say which model it runs."""
        child, requests, answers = start_child(_CHILD)
        with self._state:
            self._child, self._requests, self._answers = child, requests, answers
            self.pid = child.pid
            self.starts += 1
            closed = self._closed
        if closed:
            self._reap(in_call=True)
            raise EmbeddingError("the embedding process was closed")
        try:
            requests.send(self._spec)
            kind, *said = answers.recv()
        except (EOFError, OSError) as error:
            status = self._reap(in_call=True)
            raise EmbeddingError(
                f"the embedding process ended as it started ({_ended(status)})"
            ) from error
        if kind != "ready":
            self._reap(in_call=True)
            raise EmbeddingError(f"the embedding process could not start: {said[0]}")
        name = said[0]
        if self._expected_name is not None and name != (expected := self._expected_name()):
            self._reap(in_call=True)
            raise EmbeddingError(
                f"the embedding process runs {name!r}, not {expected!r}: vectors would not match"
            )
        return requests, answers

    def _reap(self, *, in_call: bool) -> int | None:
        """End the child, if any (politely, then by force), and forget it; its exit status.

        ``in_call``: the caller holds the call lock, so no other thread reads the answers
        pipe and it is closed here; otherwise (:meth:`close` during a call) the call in
        flight reads end of file and the pipe is closed when it lets go of it.
        """
        with self._state:
            child, requests, answers = self._child, self._requests, self._answers
            self._child = self._requests = self._answers = None
            self.pid = None
        if child is None:
            return None
        if requests is not None:
            requests.close()  # the child reads end of file and exits between calls
        if child.poll() is None:
            child.terminate()  # a call in flight ends now
        try:
            status = child.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            status = child.wait()
        if answers is not None and in_call:
            answers.close()
        return status


def _ended(status: int | None) -> str:
    if status is None:
        return "closed"
    return f"killed by signal {-status}" if status < 0 else f"exit status {status}"


def start_child(
    code: str, *arguments: str
) -> tuple[subprocess.Popen[bytes], Connection, Connection]:
    """A child interpreter running ``code``, and the pipes of what it is sent and answers.

    The code reads its two pipes' descriptors from ``sys.argv[1:3]``, then ``arguments``; the
    child has its own session (a Ctrl-C in the terminal is the parent's to handle).

    Raises:
        OSError: the child could not start (no pipe is left open).
    """
    to_child, from_parent = os.pipe()
    to_parent, from_child = os.pipe()
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", code, str(to_child), str(from_child), *arguments],
            pass_fds=(to_child, from_child),
            env=child_environment(),
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        os.close(from_parent)
        os.close(to_parent)
        raise
    finally:
        os.close(to_child)
        os.close(from_child)
    return child, Connection(from_parent, readable=False), Connection(to_parent, writable=False)


def child_environment() -> dict[str, str]:
    """The parent's environment, with its ``sys.path`` so the child imports the same code."""
    env = dict(os.environ)
    paths = [path for path in sys.path if path and os.path.isdir(path)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


# -- the child ------------------------------------------------------------------------------


def lowest_priority() -> None:
    """Put the calling process at niceness 19 and, where there is one, ``SCHED_IDLE``.

    Threads started later (the engine's) inherit both. Either may be refused (a sandbox):
    the child then runs as it is.
    """
    with contextlib.suppress(OSError):
        os.nice(LOWEST_NICE - os.nice(0))
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None and hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))


def main(arguments: Sequence[str]) -> None:
    """The child: read texts from the first pipe, answer vectors on the second, until EOF."""
    requests = Connection(int(arguments[0]), writable=False)
    answers = Connection(int(arguments[1]), readable=False)
    lowest_priority()
    try:
        embedder = _embedder(requests.recv())
    except (EOFError, KeyboardInterrupt):
        return
    except Exception as error:  # told to the parent, which decides
        answers.send(("error", f"{type(error).__name__}: {error}"))
        return
    answers.send(("ready", embedder.name))
    with contextlib.suppress(EOFError, BrokenPipeError, KeyboardInterrupt):
        while True:
            texts = requests.recv()
            answers.send(_answer(embedder, texts))


def _embedder(spec: Any) -> Embedder:
    if spec is None or isinstance(spec, str):
        from memlane.embed.factory import make_embedder

        return make_embedder(spec)
    embedder: Embedder = spec
    return embedder


def _answer(embedder: Embedder, texts: list[str]) -> tuple[str, Any]:
    try:
        return ("vectors", np.asarray(embedder.embed_documents(texts), dtype=np.float32))
    except Exception as error:  # the parent retries; this child carries on
        return ("error", f"{type(error).__name__}: {error}")
