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
# # 08 · The regression gate and reading a diff
#
# **Answers:** did a change make a memory strategy worse, or is the difference noise? `memlab
# check` compares a run with a committed baseline **probe by probe**: a drop counts as a
# regression only when it is beyond the config's tolerance (`gate:` block) *and* the paired
# test over the same probes, clustered by user, shows it after the Holm correction over the
# check's gated comparisons (answer metrics of the offline stand-in are shown, not gated). How to gate a repository in
# CI, the tolerances and the exit codes: `docs/gate.md`.
#
# Here: a baseline is written from a small run of `evals/ci.yaml`, then the same config is run
# again with one strategy degraded for real (its retriever swapped for "the most recent memories")
# and gated against it.
#
# **Parameters:** the defaults are the small CI run (one conversation per dataset, two
# strategies). Everything: `papermill notebooks/08_regression_gate.ipynb out.ipynb -p limit 0`.

# %% tags=["parameters"]
config_path = "evals/ci.yaml"  # datasets, model and the gate's tolerances
limit = 1  # conversations per dataset; 0 = all of them
strategies = [{"name": "full_context"}, {"name": "message_rag"}]  # the baseline's strategies
degraded = {"name": "message_rag", "retriever": {"type": "recency", "k": 2}}  # replaces its namesake in the second run
output_dir = ""  # "" = a temporary folder; "results" keeps the run folders

# %%
import os
import tempfile
from pathlib import Path

import pandas as pd
from IPython.display import Markdown

import memlab

if not Path("evals").is_dir():  # Jupyter and nbval start in notebooks/; config paths are relative to the repository
    os.chdir(Path.cwd().parent)
out = Path(output_dir or tempfile.mkdtemp(prefix="memlab-nb-"))
overrides = {"limit_conversations": limit or None, "output_dir": str(out)}

# %% [markdown]
# ## 1. Write a baseline
# `memlab baseline RUN_DIR --out FILE` on the command line. It pins the dataset hashes, the models
# (with their versions), the judge and its prompt hash, the code version and the metric
# definitions, and keeps every probe's outcome.

# %%
run_dir = memlab.run(memlab.load_config(config_path, {**overrides, "strategies": strategies}), progress=False)
baseline_file = memlab.write_baseline(run_dir, out / "baseline.json")
baseline = memlab.load_baseline(baseline_file)
print(f"{baseline_file}: {len(baseline.probes)} probe outcomes; models {sorted(set(baseline.models.values()))}; "
      f"datasets {[(d.name, d.hash[:19]) for d in baseline.datasets]}")

# %% [markdown]
# ## 2. Gate the same run: nothing moved
# `memlab check --run RUN_DIR --baseline FILE` scores an existing run without re-running it. Exit
# code 0: no regression.

# %%
same = memlab.check(None, baseline_file, run_dir=run_dir)
print(same.summary())

# %% [markdown]
# ## 3. Gate a degraded strategy
# `memlab check CONFIG --baseline FILE` runs the config, then compares. Exit code 1: a regression.

# %%
changed = [degraded if s["name"] == degraded["name"] else s for s in strategies]
result = memlab.check(memlab.load_config(config_path, {**overrides, "strategies": changed}), baseline_file)
print(result.summary())
result.exit_code

# %% [markdown]
# ## 4. Reading the diff
# Each row pairs the baseline and this run over the same probes: `diff` is new − old, `ci_low` /
# `ci_high` its interval (cluster-robust t over users), `p_value` / `p_adjusted` the p-value of "no
# change" before and after the Holm correction. A row's raw verdict (`raw_regression`) is a
# regression when the metric got worse by more than its `max_drop` and the whole interval is on the
# worse side of zero, or when it broke its `floor`; the check's verdict (`regression`) also needs
# the Holm-adjusted p-value to be at most 0.05. A drop whose interval still holds zero is reported as *not shown*:
# with few conversations, a couple of flipped probes is what noise looks like.

# %%
deltas = pd.DataFrame(result.deltas)
deltas[deltas["gated"]].drop(columns=["gated"]).round(3)

# %% [markdown]
# The flipped probes are where to look first: the question, both answers and what the memory
# context held around the gold answer.

# %%
pd.DataFrame([{"strategy": f.old.strategy, "probe": f.old.probe_id, "question": f.old.question,
               "worse": ", ".join(f.worse), "better": ", ".join(f.better),
               "baseline context": f.old.context_excerpt[:120], "this run's context": f.new.context_excerpt[:120]}
              for f in result.flips])

# %% [markdown]
# The same diff as the pull-request comment `memlab check ... --markdown FILE` writes:

# %%
Markdown(result.to_markdown(max_flips=5))
