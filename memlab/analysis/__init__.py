"""The analysis pipeline: a finished run folder is read back and scored, compared, gated and reported.

``results`` (load_run, frames) → ``metrics`` (per-probe scores, from :mod:`memlab.scoring`) →
``stats`` (intervals clustered by user) → tables and plots (``report``, ``html_report``, ``plots``,
``lifecycle``, ``break_even``) and decisions (``baseline``, ``gate``, ``suite_check``) — see
docs/architecture.md. Nothing here imports a strategy, a model or a role.
"""
