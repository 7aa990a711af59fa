"""Judging that can be trusted: named judge prompts with hashes, re-judging a run, auditing a judge.

- :mod:`memlab.judging.prompts`: the ``lenient`` and ``strict`` prompts, their hashes, the judge's inputs;
- :mod:`memlab.judging.rejudge`: re-score an existing run's answers with another judge (``memlab rejudge``);
- :mod:`memlab.judging.audit`: measure a judge on planted wrong and paraphrased-right answers (``memlab judge-audit``).

See docs/judging.md.
"""
