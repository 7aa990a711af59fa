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
# # 04 · Extraction modes: who writes long-term memory?
#
# **Answers:** should facts be written by a **post-pass** (one extraction call after each agent
# invocation) or by the **agent itself** through a `store_fact` tool while it works? The two modes
# differ in what gets written (stated facts never stored), in write volume and in where the tokens
# go (tool schemas in every agent prompt vs extraction calls). The strategies come from
# `evals/axes.yaml` (the extraction axis, with the compression trigger held fixed); `react` (no
# long-term memory) frames them. The default dataset is `cross_thread`: most probes are asked in a
# later thread than the one that stated (or a tool that returned) their answer, so only what was
# written to long-term memory can answer them.
#
# **Parameters:** the defaults are the small CI run (one `cross_thread` user and their threads). The
# whole axis on every suite of the config:
# `papermill notebooks/04_extraction_modes.ipynb out.ipynb -p limit 0 -p workers 2 -y 'datasets: []' -y 'strategies: [react, never+post_pass, never+agent_tool, every4+post_pass, every4+agent_tool, never+post_pass+search]'`

# %% tags=["parameters"]
config_path = "evals/axes.yaml"
limit = 1  # users per dataset (all threads of each); 0 = all of them
datasets = ["datasets/suites/cross_thread.yaml"]  # [] = the config's datasets
strategies = ["never+post_pass", "never+agent_tool", "never+post_pass+search"]  # config strategies or presets
pair = ["never+post_pass", "never+agent_tool"]  # compared paired over the same probes
workers = 1  # units played at once
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
from pathlib import Path

import memlab
from memlab.analysis.lifecycle import lifecycle_table

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; config paths are relative to the repository
    os.chdir(Path.cwd().parent)
config = memlab.notebook_config(config_path, strategies, limit=limit, datasets=datasets,
                                workers=workers, output_dir=output_dir)
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
res.components()

# %% [markdown]
# ## What got written
#
# Fact writes (ADD + UPDATE) per invocation, evidence turns that no stored memory cites
# (`stated_never_stored`: with a real model, this is the agent's tool reliability), near-duplicate
# writes, and model tokens by purpose per conversation.

# %%
lifecycle = lifecycle_table(res)
lifecycle.reindex(columns=["facts_per_invocation", "stated_never_stored", "duplicate_writes", "tokens_agent",
                           "tokens_extract", "tokens_consolidate"]).round(2)

# %%
ops = res.memory_ops
ops.groupby(["strategy", "op"]).size().unstack(fill_value=0)

# %% [markdown]
# ## Recall and cost, and the paired difference

# %%
summary = res.summary()
print(summary.attrs["caption"])
summary[["evidence_recall", "evidence_recall_ci", "prompt_tokens_per_conv", "calls_per_conv"]].round(3)

# %% [markdown]
# Answer accuracy, apart from recall: what the answering model made of the memory. With the offline
# stand-in it measures that extractive answerer, not the memory (the printed line says which).

# %%
answers = res.answer_summary()
print(answers.attrs["caption"])
answers.round(3)

# %%
print(res.answer_warning)  # about the answer_correct row
res.compare(*pair, metrics=["evidence_recall", "answer_correct"], by_category=False)[
    ["metric", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "a_only", "b_only", "verdict"]].round(3)

# %% [markdown]
# The same pair split by where the evidence was said: in the probe's own thread, or only in earlier
# threads (where the extraction mode decides everything).

# %%
res.compare(*pair, metrics=["evidence_recall"], by="evidence_scope")[
    ["category", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "a_only", "b_only", "verdict"]].round(3)

# %% [markdown]
# ## Inject at the start, or search when asked?
#
# `never+post_pass+search` writes memory like `never+post_pass` but answers with `answer: {type: tools}`:
# no long-term memory is injected, the agent searches it with read-only tools before the answer
# (each search is an agent step of the probe; its tokens count under `answer`).

# %%
steps = res.agent_steps
print(steps[steps["phase"] == "probe"].groupby(["strategy", "tool"]).size())
res.compare("never+post_pass+search", "never+post_pass", metrics=["evidence_recall"], by="evidence_scope")[
    ["category", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "verdict"]].round(3)
