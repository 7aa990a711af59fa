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
# # 02 · Compare strategies and the seed-system presets
#
# **Answers:** which memory strategy recalls the evidence best at what cost, and is a difference
# real or noise? Runs the baselines of `evals/default.yaml` next to the seed systems as presets
# (`agent_chat`, `supervisor`, `son_of_andrew`, `agent_memory_pg` — what each knob is:
# `evals/presets/README.md`), then compares them **paired over the same probes** with intervals
# clustered by user (the conversations of one user share its memory).
#
# **Parameters:** the defaults are the small CI run (one conversation, three strategies). Everything:
# `papermill notebooks/02_compare_strategies_and_presets.ipynb out.ipynb -p limit 0 -y 'strategies: [no_memory, full_context, recent_window, fact_rag, message_rag, agent_chat, supervisor, son_of_andrew]'`
# (`agent_memory_pg` runs on Postgres: start it first with `bash scripts/pg.sh start`).

# %% tags=["parameters"]
config_path = "evals/default.yaml"  # the baselines; presets named below are added beside them
limit = 1  # conversations per dataset; 0 = all of them
strategies = ["full_context", "message_rag", "agent_chat"]  # config strategies or presets
reference = "full_context"  # every other strategy is compared against this one
pair = ["message_rag", "agent_chat"]  # one paired comparison shown per category
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
from pathlib import Path

from IPython.display import Image

import memlab
from memlab.analysis.report import category_table, plot_recall_vs_tokens

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; config paths are relative to the repository
    os.chdir(Path.cwd().parent)
config = memlab.notebook_config(config_path, strategies, limit=limit, output_dir=output_dir)
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
res.components()

# %% [markdown]
# ## The table: recall, accuracy, cost

# %%
summary = res.summary()
print(summary.attrs["caption"])
summary[["evidence_recall", "evidence_recall_ci", "content_recall", "provenance_recall",
         "context_tokens", "prompt_tokens_per_conv", "calls_per_conv"]].round(3)

# %% [markdown]
# Answer accuracy, apart from recall: what the answering model made of the memory. With the offline
# stand-in it measures that extractive answerer, not the memory (the printed line says which).

# %%
answers = res.answer_summary()
print(answers.attrs["caption"])
answers.round(3)

# %%
Image(filename=str(plot_recall_vs_tokens(res, Path(run_dir) / "recall_vs_tokens.png")))

# %%
category_table(res).round(2)

# %% [markdown]
# ## Paired comparisons
#
# Each strategy against the reference: the mean difference A − B over the probes both answered, its
# interval, and a verdict. With one conversation the intervals cannot exclude zero — that is the
# honest answer, not a bug; rerun with `limit 0`.

# %%
headline = ["evidence_recall", "answer_correct"]
all_vs_ref = res.compare_all(reference, metrics=headline)
print(all_vs_ref.attrs["caption"])
print(res.answer_warning)  # about the answer_correct rows
all_vs_ref[["a", "b", "metric", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "a_only", "b_only", "verdict"]].round(3)

# %%
one_pair = res.compare(*pair, metrics=headline)
one_pair[["category", "metric", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "a_only", "b_only", "verdict"]].round(3)

# %% [markdown]
# The discordant probes behind `a_only` / `b_only`, the two contexts side by side with what one holds
# and the other does not (`memlab.view.show(res)`: the viewer of `memlab view`, stopped with the kernel).

# %%
from memlab.view import show

view = show(res, route=f"/compare?run=0&a={pair[0]}&b={pair[1]}&metric=evidence_recall")
view

# %% [markdown]
# ## Where the tokens go
#
# Model tokens per conversation by purpose (extraction, consolidation, summaries, answers).

# %%
res.cost().filter(regex="^tokens_").round(0)

# %% [markdown]
# What the same comparison would cost with a real model, per strategy and purpose (docs/cost.md):
# projected from this run (a dry run on the offline stand-in) to every user of the config, for two
# models; USD typical – max (output at `max_tokens`). Presets that make more calls per turn
# (`agent_chat`'s summaries and entity updates) show it here before any key is spent.

# %%
estimate = memlab.estimate(config.model_copy(update={"limit_conversations": None}), ["gpt-4o-mini", "gpt-4o"],
                           run_dir=run_dir)
print("; ".join(estimate.notes))
estimate.rows.pivot_table(index=["strategy", "purpose"], columns="model", values="usd", aggfunc="sum").round(4)
