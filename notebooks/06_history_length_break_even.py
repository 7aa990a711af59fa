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
# # 06 · History length and the break-even against full context
#
# **Answers:** as the history grows, how do recall and cost of each strategy change, and from what
# length does a memory strategy cost fewer model tokens than simply re-sending the full context?
# Full context is the recall upper bound, but every probe re-sends the whole history; a memory
# strategy pays per turn (extraction) and injects little. The dataset is padded with filler sessions
# by the deterministic scaler (`memlab datasets scale`: probes and evidence stay valid, filler never
# mentions an answer), every length is played through every strategy in one run — the same sweep as
# `evals/length_sweep.py` — and `memlab.analysis.break_even` finds where the cost curves cross.
#
# **Parameters:** the defaults are the small CI run (one conversation, up to ~6k tokens). The README's
# sweep (the recall suite at 1.5k / 5k / 15k tokens per conversation):
# `papermill notebooks/06_history_length_break_even.ipynb out.ipynb -p limit 0 -p bootstrap 1000 -y 'targets: [35k, 105k]' -y 'strategies: [full_context, recent_window, fact_rag, message_rag]'`

# %% tags=["parameters"]
dataset = "datasets/suites/recall.yaml"  # any dataset memlab reads (native, LoCoMo, LongMemEval)
targets = ["20k", "40k"]  # total dataset tokens of each scaled copy; the unscaled dataset is always included
limit = 1  # conversations per dataset; 0 = all of them
strategies = ["full_context", "message_rag", "fact_rag"]  # presets
reference = "full_context"  # the break-even is against this strategy
cost = "model_tokens_per_conv"  # or "context_tokens_per_probe" (memory tokens injected per question)
bootstrap = 200  # resamples for the confidence intervals
scaled_dir = "results/length_sweep"  # scaled copies are written once here and reused
output_dir = ""  # "" = a temporary folder; "results" keeps the run folder

# %%
import os
import tempfile
from pathlib import Path

from IPython.display import Image

import memlab
from memlab.analysis.break_even import break_even
from memlab.datasets.scale import parse_tokens, scaled_copies
from memlab.analysis.report import length_table, plot_recall_vs_length

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; dataset paths are relative to the repository
    os.chdir(Path.cwd().parent)
copies = scaled_copies(dataset, [parse_tokens(t) for t in targets], scaled_dir)
config = memlab.RunConfig(
    name="length-sweep", description=f"{dataset} at {len(copies) + 1} lengths",
    datasets=[dataset, *map(str, copies)], strategies=[{"name": s} for s in strategies],
    limit_conversations=limit or None, bootstrap=bootstrap, output_dir=output_dir or tempfile.mkdtemp(prefix="memlab-nb-"),
)
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
[(d["name"], d.get("tokens_per_conversation")) for d in res.manifest["datasets"]]

# %% [markdown]
# ## Recall and cost per length

# %%
table = length_table(res)
print(table["ci_method"].iloc[0])
table[["strategy", "history_tokens_per_conv", "evidence_recall", "ci_low", "ci_high",
       "context_tokens_per_probe", "model_tokens_per_conv"]].round(3)

# %% [markdown]
# Answer accuracy by length, apart from recall (with the offline stand-in it measures that answerer).

# %%
print(res.answer_warning or f"answers by {res.model_label}")
table[["strategy", "history_tokens_per_conv", "answer_correct"]].round(3)

# %%
Image(filename=str(plot_recall_vs_length(res, table, Path(run_dir) / "recall_vs_length.png")))

# %% [markdown]
# ## The break-even
#
# Per strategy, the history length (tokens per conversation) at which its cost equals the
# reference's, interpolated between the measured lengths (never extrapolated: `status` says when the
# curves do not cross in the measured range), with the cost ratio and the recall difference at the
# longest length — cheaper is only half the answer when recall drops.

# %%
break_even(table, reference=reference, cost=cost).round(3)
