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
# # 03 · Compression triggers: when should working memory be compressed?
#
# **Answers:** what does each working-memory compression trigger (`never`, `every_n_steps(4)`,
# `token_threshold(1500)`, `agent_driven`) cost and keep? An agent's working memory grows with every
# tool step; compressing it folds old steps into a summary. Compress too often and evidence is lost
# in the summary, too late and every step re-sends a long prompt. The strategies come from
# `evals/axes.yaml` (the compression-trigger axis, with post-pass extraction held fixed;
# [`docs/agent.md`](../docs/agent.md) explains the agent loop). The default dataset is `long_task`:
# probes asked deep inside a 26-38 step task need observations from its first calls, so a trigger
# that folds them into a lossy summary shows in recall (the "thread" row of the scope table), while
# probes from later threads depend on long-term memory, which the trigger does not touch.
#
# **Parameters:** the defaults are the small CI run (one `long_task` user and their threads). The
# whole axis on every suite of the config:
# `papermill notebooks/03_compression_triggers.ipynb out.ipynb -p limit 0 -p workers 2 -y 'datasets: []' -y 'strategies: [react, never+post_pass, every4+post_pass, tokens1500+post_pass, agent+post_pass]'`

# %% tags=["parameters"]
config_path = "evals/axes.yaml"
limit = 1  # users per dataset (all threads of each); 0 = all of them
datasets = ["datasets/suites/long_task.yaml"]  # [] = the config's datasets
strategies = ["never+post_pass", "every4+post_pass", "agent+post_pass"]  # add "tokens1500+post_pass", "react", "full_context"
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
# ## What each trigger did
#
# Compressions per conversation, working-memory size (tokens after each turn: peak and mean), the
# share of folded evidence whose value survived in the summary, and the tokens spent compressing
# (`memlab.analysis.lifecycle` documents every column).

# %%
lifecycle = lifecycle_table(res)
lifecycle.reindex(columns=["compressions_per_conv", "evidence_survival", "wm_tokens_peak", "wm_tokens_mean",
                           "tokens_compress", "tokens_agent"]).round(2)

# %% [markdown]
# ## What it did to recall and cost

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

# %% [markdown]
# Where the evidence was said: in the probe's own thread (inside the task: what working memory kept)
# or only in earlier threads (what long-term memory carried). `memlab.analysis.report.scope_table` is the
# same table `memlab report` prints.

# %%
from memlab.analysis.report import scope_table

scope_table(res).round(2)

# %% [markdown]
# Each compression event: when it fired, why, and how many tokens it folded.

# %%
res.compressions[["strategy", "turn_id", "trigger", "reason", "step", "tokens_before", "tokens_after",
                  "folded_turn_ids"]].head(10)
