"""Threads: a user's memory across several conversations, and splitting sessions into threads.

A **user** is a namespace; each of the user's conversations is a **thread**. Threads are played
in dataset order, each starting with empty short-term and working memory, while long-term memory
(and episodes) carry over — which is how assistants with memory are used: a new chat starts
empty, only memory persists. Evidence may therefore name turns of an earlier thread of the same
user (:func:`memlab.datasets.io.check_consistency` enforces the rules).

Most public benchmarks put a user's whole history into one multi-session conversation, so a
probe is always asked in the conversation that holds its answer and conversation memory (the
history, a rolling summary) can answer it without any long-term memory. :func:`split_sessions`
(``memlab datasets threads IN --out OUT``, or ``threads: per_session`` in a run config) turns
every session of such a conversation into its own thread of the same user. It works on the
loaded :class:`~memlab.datasets.models.Dataset`, so native files, LoCoMo and LongMemEval are
split alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from memlab.datasets.models import Conversation, Dataset
from memlab.datasets.problems import DatasetError, Problem

ThreadMode = Literal["as_is", "per_session"]
THREAD_MODES: tuple[str, ...] = ("as_is", "per_session")


def thread_id(conversation_id: str, index: int) -> str:
    """The id of the ``index``-th (1-based) thread split from ``conversation_id``."""
    return f"{conversation_id}-t{index:02d}"


def split_sessions(ds: Dataset, file: str = "", line: int | None = None) -> Dataset:
    """Every session of every multi-session conversation as its own thread of the same user.

    Turn ids stay as they are (they were unique within the conversation, so they are unique per
    user), each probe goes to the thread that holds its ``after_turn`` and keeps its evidence
    (now often in an earlier thread), and each thread keeps the conversation's speakers and meta
    (plus ``thread_of`` and ``session``). A conversation with one session stays one thread. A
    dataset whose conversations all have a single session is refused: there is nothing to split,
    and a run that asked for threads would silently measure nothing new.
    """
    if all(len(c.sessions) == 1 for c in ds.conversations):
        raise DatasetError([Problem(file or ds.name, "conversations[*].sessions", line,
                                    "threads: per_session splits multi-session conversations into threads, but every "
                                    f"conversation of dataset {ds.name!r} has a single session (nothing to split); "
                                    "drop the threads option for this dataset")])
    convs: list[Conversation] = []
    for conv in ds.conversations:
        if len(conv.sessions) == 1:
            convs.append(conv)
            continue
        session_of = {t.id: si for si, s in enumerate(conv.sessions) for t in s.turns}
        probes: dict[int, list] = {}
        for probe in conv.probes:
            probes.setdefault(session_of.get(probe.after_turn, len(conv.sessions) - 1), []).append(probe)
        for si, session in enumerate(conv.sessions):
            convs.append(Conversation(
                id=thread_id(conv.id, si + 1), namespace=conv.ns, speakers=dict(conv.speakers), sessions=[session],
                probes=list(probes.get(si, [])),
                meta={**conv.meta, "thread_of": conv.id, "session": session.id}))
    meta = {**ds.meta, "threads": "per_session", "threads_from": ds.name}
    return ds.model_copy(update={"name": f"{ds.name}-threads", "conversations": convs, "meta": meta})


def load_threaded(path: str | Path, mode: str = "as_is") -> Dataset:
    """Load a dataset file of any format and apply the thread ``mode`` (``as_is`` or ``per_session``)."""
    from memlab.datasets.io import load_dataset

    if mode not in THREAD_MODES:
        raise ValueError(f"unknown threads mode {mode!r}; one of: {', '.join(THREAD_MODES)}")
    ds = load_dataset(path)
    if mode == "as_is":
        return ds
    return split_sessions(ds, str(path), _sessions_line(path))


def _sessions_line(path: str | Path) -> int | None:
    """The line of the first conversation's sessions (native) or of the first record (benchmarks)."""
    from memlab.datasets.source import read_source

    try:
        source = read_source(path)
    except DatasetError:
        return None
    loc: tuple = ("conversations", 0, "sessions") if isinstance(source.data, dict) and "conversations" in source.data else (0,)
    return source.line_for(loc)


def first_users(ds: Dataset, n: int | None) -> Dataset:
    """``ds`` with only the threads of its first ``n`` users (every thread of each, in order).

    Limiting by user, not by conversation, keeps a user's later threads with the earlier ones they
    depend on; with one conversation per user it is the first ``n`` conversations."""
    if not n:
        return ds
    keep: list[str] = []
    for conv in ds.conversations:
        if conv.ns not in keep:
            if len(keep) == n:
                continue
            keep.append(conv.ns)
    return ds.model_copy(update={"conversations": [c for c in ds.conversations if c.ns in keep]})


def load_for_run(paths: list[str], threads: str = "as_is", limit_users: int | None = None) -> list[tuple[str, Dataset]]:
    """The datasets of a run as it plays them: loaded, split into threads when asked, limited to the
    first users. One definition for the runner and for the gate's pre-check of dataset hashes."""
    return [(p, first_users(load_threaded(p, threads), limit_users)) for p in paths]
