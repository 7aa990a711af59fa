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
# # 01 · Quickstart: run a comparison and read it
#
# **Answers:** how do I run a memory comparison and read its numbers? Runs a slice of
# `evals/default.yaml` (the starter dataset, the offline stand-in model — general text mechanisms
# standing in for an LLM, so no key is needed) and reads the results with pandas. All logic lives in
# the `memlab` package; this notebook only drives it.
#
# **Parameters** (next cell, papermill): the defaults are the small CI run (one conversation).
# The full default comparison:
# `papermill notebooks/01_quickstart.ipynb out.ipynb -p limit 0 -p output_dir results -y 'strategies: [no_memory, full_context, recent_window, fact_rag, message_rag]'`

# %% tags=["parameters"]
config_path = "evals/default.yaml"  # a run config; its strategies are sliced below
limit = 1  # conversations per dataset; 0 = all of them
strategies = ["no_memory", "full_context", "recent_window", "message_rag"]  # names in the config, or presets
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
from pathlib import Path

from IPython.display import Image

import memlab
from memlab.analysis.report import plot_recall_vs_tokens

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; config paths are relative to the repository
    os.chdir(Path.cwd().parent)
config = memlab.notebook_config(config_path, strategies, limit=limit, output_dir=output_dir)
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
res.manifest["models"]["roles"]

# %% [markdown]
# One row per strategy: string recall (a gold answer is in the memory the agent was given) with its
# interval clustered by user, memory tokens per probe and model calls.

# %%
summary = res.summary()
print(summary.attrs["caption"])
summary[["evidence_recall", "evidence_recall_ci", "context_tokens", "calls_per_conv"]].round(3)

# %% [markdown]
# Answer accuracy, apart from recall: what the answering model made of the memory. With the offline
# stand-in it measures that extractive answerer, not the memory (the printed line says which).

# %%
answers = res.answer_summary()
print(answers.attrs["caption"])
answers.round(3)

# %% [markdown]
# The bounds must order: full context sees every evidence turn, no memory sees none.

# %%
assert summary.loc["full_context", "evidence_recall"] > summary.loc["no_memory", "evidence_recall"]
res.probes[["strategy", "probe_id", "category", "question", "answer", "evidence_recall"]].head(8)

# %%
Image(filename=str(plot_recall_vs_tokens(res, Path(run_dir) / "recall_vs_tokens.png")))

# %% [markdown]
# Every memory write with its provenance (the source turns it came from).

# %%
res.memory_ops[["strategy", "turn_id", "op", "text", "source_turn_ids"]].head(10)

# %% [markdown]
# ## What would this cost with a real model?
#
# `memlab estimate` (docs/cost.md) projects a config's calls, tokens, cost range and wall time for
# named models from an offline dry run — and this run *is* one (every role on the offline stand-in,
# tokens counted on the exact prompts). Given the whole `evals/default.yaml`, it scales this slice's
# calls to all of the config's users (per-turn calls by turns, per-probe calls by probes). USD:
# typical (the stand-in's output lengths) to max (every call's output at its `max_tokens`), prices
# from LiteLLM's offline map. The command line does the same: `memlab estimate evals/default.yaml
# --model gpt-4o-mini --model gpt-4o`.

# %%
estimate = memlab.estimate(memlab.load_config(config_path), ["gpt-4o-mini", "gpt-4o"], run_dir=run_dir)
print("; ".join(estimate.notes))
estimate.by_strategy().round(4)

# %%
estimate.totals()[["model", "calls", "input_tokens", "output_tokens", "usd", "usd_max", "wall_s", "wall_bound"]].round(3)

# %% [markdown]
# ## Look at the probes instead of reading them
#
# `show(res)` (`from memlab.view import show`) opens the same browser as `memlab view RUN_DIR` inside the notebook: every probe with
# each strategy's context (gold forms and the lines derived from evidence marked), the comparison
# of two strategies side by side, each user's memory timeline. It runs in a child process that
# stops with the kernel (docs/view.md); `view.url` opens it in a tab. This one starts on the probes
# `message_rag` missed.

# %%
from memlab.view import show

view = show(res, route="/probes?run=0&strategy=message_rag&metric=evidence_recall&outcome=miss")
view
