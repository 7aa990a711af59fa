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
# strategy pays per turn (extraction) and injects little. The dataset is lengthened by the
# deterministic scaler (`memlab datasets scale`: probes and evidence stay valid) in two modes:
# **filler** (impersonal chit-chat: longer, not harder) and **informative** (sessions of new people,
# their updates and distractors — what real chat adds). Every length of both modes is played through
# every strategy in one run — the same sweep as `evals/length_sweep.py` — and
# `memlab.analysis.break_even` finds where the cost curves cross. A memory that must choose what to
# keep shows it on informative sessions, not on filler: compare the solid and dashed lines.
#
# **Parameters:** the defaults are the small CI run (one conversation, up to ~6k tokens). The README's
# sweep (the recall suite at 1.5k / 5k / 15k tokens per conversation, both modes):
# `papermill notebooks/06_history_length_break_even.ipynb out.ipynb -p limit 0 -y 'targets: [35k, 105k]' -y 'strategies: [full_context, recent_window, fact_rag, message_rag, agent_chat]'`

# %% tags=["parameters"]
dataset = "datasets/suites/recall.yaml"  # any dataset memlab reads (native, LoCoMo, LongMemEval)
targets = ["20k", "40k"]  # total dataset tokens of each scaled copy; the unscaled dataset is always included
limit = 1  # conversations per dataset; 0 = all of them
strategies = ["full_context", "message_rag", "fact_rag"]  # presets
modes = ["filler", "informative"]  # how the history is lengthened: chit-chat, or sessions that carry facts
reference = "full_context"  # the break-even is against this strategy
cost = "model_tokens_per_conv"  # or "context_tokens_per_probe" (memory tokens injected per question)
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
copies = [c for mode in modes for c in scaled_copies(dataset, [parse_tokens(t) for t in targets], scaled_dir, mode=mode)]
config = memlab.RunConfig(
    name="length-sweep", description=f"{dataset} at {len(targets) + 1} lengths, lengthened by {' and '.join(modes)}",
    datasets=[dataset, *map(str, copies)], strategies=[{"name": s} for s in strategies],
    limit_conversations=limit or None, output_dir=output_dir or tempfile.mkdtemp(prefix="memlab-nb-"),
)
run_dir = memlab.run(config, progress=False)
res = memlab.load_run(run_dir)
[(d["name"], d.get("tokens_per_user"), (d.get("scaled") or {}).get("mode")) for d in res.manifest["datasets"]]

# %% [markdown]
# ## Recall and cost per length

# %%
table = length_table(res)
print(table["ci_method"].iloc[0])
table[["strategy", "mode", "history_tokens_per_user", "evidence_recall", "ci_low", "ci_high",
       "context_tokens_per_probe", "model_tokens_per_conv"]].round(3)

# %% [markdown]
# Answer accuracy by length, apart from recall (with the offline stand-in it measures that answerer).

# %%
print(res.answer_warning or f"answers by {res.model_label}")
table[["strategy", "mode", "history_tokens_per_user", "answer_correct"]].round(3)

# %%
Image(filename=str(plot_recall_vs_length(res, table, Path(run_dir) / "recall_vs_length.png")))

# %% [markdown]
# ## The break-even
#
# Per strategy, the history length (tokens per conversation) at which its cost equals the
# reference's, interpolated between the measured lengths (never extrapolated: `status` says when the
# curves do not cross in the measured range), with the cost ratio and the recall difference at the
# longest length — cheaper is only half the answer when recall drops. One break-even per way of
# lengthening (each mode's lengths share the unscaled dataset as their first point).

# %%
import pandas as pd

pd.concat([break_even(table[table["mode"].isin([mode, "original"])], reference=reference, cost=cost).assign(mode=mode)
           for mode in modes], ignore_index=True).round(3)
