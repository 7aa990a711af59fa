"""The run folder: the one thing the run pipeline and the analysis pipeline share.

- :mod:`memlab.runfolder.events` — what a strategy reports it did (memory operations, compressions,
  agent steps): the event half of those streams' rows;
- :mod:`memlab.runfolder.records` — what each stream's rows are (scope + position + event) (``manifest.json``, ``turns``,
  ``probes``, ``calls``, ``units``...), the format version and the upgrades of older folders;
- :mod:`memlab.runfolder.recorder` — the one writer of a run's streams (and ``read_jsonl``);
- :mod:`memlab.runfolder.folders` — finding, claiming and listing run folders, their finished units.

A low package: it imports nothing from memlab but :mod:`memlab.atomic`, so the harness (which
writes folders), the analysis side and the viewer (which read them), the judge pass and ``memlab
rejudge``, the model layer's replay and the store purge all import it without depending on one
another (docs/architecture.md, the layers).
"""
