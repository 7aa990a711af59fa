# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · Storage backends: does the store change the results, and what does it cost?
#
# **Answers:** does a memory strategy give the same recall on the in-memory store (exact search, the
# reference), Chroma (embedded) and PostgreSQL + pgvector, and how long do searches take on each?
# The strategies come from `evals/backends.yaml`: `fact_rag` and a hybrid retriever, unchanged except
# for the store ([`docs/backends.md`](../docs/backends.md) describes each backend).
#
# Postgres is the project's own server: start it with `bash scripts/pg.sh start` (the test command
# does); the store finds its DSN by itself (`$MEMLAB_PG_DSN`, else the `.memlab/pg/dsn` file the
# script writes). Without a server, the Postgres strategies are left out with a message.
#
# **Parameters:** the defaults are the small CI run (one conversation). Everything:
# `papermill notebooks/05_storage_backends.ipynb out.ipynb -p limit 0 -y 'strategies: [fact_rag@in_memory, fact_rag@chroma, fact_rag@postgres, hybrid@in_memory, hybrid@postgres]'`

# %% tags=["parameters"]
config_path = "evals/backends.yaml"
limit = 1  # conversations per dataset; 0 = all of them
strategies = ["fact_rag@in_memory", "fact_rag@chroma", "fact_rag@postgres"]  # add "hybrid@in_memory", "hybrid@postgres"
reference = "fact_rag@in_memory"  # the exact-search reference the others are compared with
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
from pathlib import Path

import memlab
from memlab.memory.stores.base import StoreError
from memlab.memory.stores.postgres import resolve_dsn

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; config paths are relative to the repository
    os.chdir(Path.cwd().parent)
config = memlab.notebook_config(config_path, strategies, limit=limit, output_dir=output_dir)
try:
    resolve_dsn()  # the DSN only (never printed: it holds the password)
except StoreError as exc:
    print(f"No PostgreSQL server configured ({exc}); the postgres strategies are left out. "
          "Start it with `bash scripts/pg.sh start` and rerun.")
    config = config.with_strategies([s["name"] for s in config.resolved_strategies() if (s.get("store") or {}).get("type") != "postgres"])
[s.name for s in config.strategies]

# %%
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
res.components()

# %% [markdown]
# ## Same results?
#
# Recall should match the in-memory reference up to the approximate-nearest-neighbour search of
# Chroma's and pgvector's HNSW indexes; a difference would show up as discordant probes below.

# %%
summary = res.summary()
print(summary.attrs["caption"])
summary[["evidence_recall", "evidence_recall_ci", "content_recall", "context_tokens"]].round(3)

# %% [markdown]
# Answer accuracy, apart from recall: what the answering model made of the memory. With the offline
# stand-in it measures that extractive answerer, not the memory (the printed line says which).

# %%
answers = res.answer_summary()
print(answers.attrs["caption"])
answers.round(3)

# %%
print(res.answer_warning)  # about the answer_correct rows
res.compare_all(reference, metrics=["evidence_recall", "answer_correct"])[
    ["a", "b", "metric", "n", "mean_a", "mean_b", "diff", "a_only", "b_only", "verdict"]].round(3)

# %% [markdown]
# ## At what latency?
#
# Milliseconds per probe inside the store's search calls, and for assembling the whole memory context
# (embedding the question, searching, reranking). Latencies depend on the machine; the recall columns
# do not.

# %%
(summary[["retrieval_latency_s", "retrieval_total_s"]] * 1000).round(2).rename(columns=lambda c: c.replace("_s", "_ms"))
