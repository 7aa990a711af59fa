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
# # 07 · Public benchmarks: LoCoMo and LongMemEval from a local file
#
# **Answers:** how do the strategies do on the published long-term-memory benchmarks? memlab reads
# LoCoMo (`locomo10.json`) and LongMemEval (`longmemeval_s.json`, `_m`, `_oracle`) directly
# (conversion rules: [`datasets/README.md`](../datasets/README.md#public-benchmarks)). Nothing is
# downloaded: put the files where the parameters point. Without them this notebook says what to
# fetch and where to put it, and runs nothing.
#
# - LoCoMo: `data/locomo10.json` from https://github.com/snap-research/locomo
# - LongMemEval: `longmemeval_s.json` (or `_m`, `_oracle`), linked from https://github.com/xiaowu0162/LongMemEval
#
# **Parameters:** the defaults run the first conversation of each file present (a LongMemEval
# conversation is one question with its ~115k-token haystack in `_s`). All of LoCoMo:
# `papermill notebooks/07_public_benchmarks.ipynb out.ipynb -p limit 0 -p longmemeval_path '' -p output_dir results`

# %% tags=["parameters"]
locomo_path = ".memlab/benchmarks/locomo10.json"  # "" = skip LoCoMo
longmemeval_path = ".memlab/benchmarks/longmemeval_s.json"  # "" = skip LongMemEval
config_path = "evals/default.yaml"  # its strategies are used; its datasets are replaced by the files above
limit = 1  # conversations per file; 0 = all of them
strategies = ["no_memory", "full_context", "message_rag"]  # config strategies or presets
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
from pathlib import Path

import pandas as pd

import memlab
from memlab.datasets.stats import collect_stats

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; paths are relative to the repository
    os.chdir(Path.cwd().parent)
wanted = {"LoCoMo": locomo_path, "LongMemEval": longmemeval_path}
present = [p for p in wanted.values() if p and Path(p).is_file()]
for benchmark, path in wanted.items():
    if path and not Path(path).is_file():
        print(f"{benchmark}: no file at {Path(path).resolve()} — download it (links above), put it there "
              f"(mkdir -p {Path(path).resolve().parent}) or pass its path with -p {benchmark.lower()}_path PATH. "
              f"{benchmark} is skipped.")
print(f"running on: {', '.join(present)}" if present else "No benchmark file present: nothing to run.")

# %% [markdown]
# ## The files: conversations, probes per category, length

# %%
pd.DataFrame(collect_stats(present)[0]) if present else None

# %% [markdown]
# ## Run the strategies on them

# %%
res = None
if present:
    config = memlab.notebook_config(config_path, strategies, limit=limit, datasets=present,
                                    name="public-benchmarks", output_dir=output_dir)
    res = memlab.load_run(memlab.run(config, progress=False))

# %%
if res is not None:
    summary = res.summary()
    print(summary.attrs["caption"])
    display(summary[["evidence_recall", "evidence_recall_ci", "context_tokens", "prompt_tokens_per_conv"]].round(3))
    answers = res.answer_summary()  # apart from recall: what the answering model made of the memory
    print(answers.attrs["caption"])
    display(answers.round(3))

# %% [markdown]
# Recall by the benchmark's own category (LoCoMo: multi-hop, temporal, open-domain, single-hop,
# adversarial; LongMemEval: its question types), per file.

# %%
if res is not None:
    display(res.probes.pivot_table(index=["dataset", "original_category"], columns="strategy",
                                   values="evidence_recall", aggfunc="mean").round(2))
