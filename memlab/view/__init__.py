"""``memlab view``: run folders in the browser — probes with their contexts side by side, each
user's memory timeline and the probes that flipped between two runs (docs/view.md).

The viewer is on the analysis side of the import firewall: it reads run folders and never imports a
strategy, a role, a model or the offline stand-in. Its modules:

- :mod:`memlab.view.index` — the index of a run folder (byte offsets and light fields of every
  record, scores, the overview tables), built once in a child process and cached in the folder;
- :mod:`memlab.view.pages` — what each page shows, as JSON-ready dicts, read through the index;
- :mod:`memlab.view.lines` — a context's lines with the gold forms and evidence lines marked;
- :mod:`memlab.view.timeline` — a user's memory operations by turn and the store as of a turn;
- :mod:`memlab.view.server` — the web app (Starlette on uvicorn, 127.0.0.1, a token in the URL);
- :mod:`memlab.view.notebook` — :func:`show` (``memlab.view.show(res)``): the same app in a notebook.

The command line that opens what a report summarises is :mod:`memlab.analysis.view_command` (the
reports build it, and the viewer sits above the analysis package).
"""

from memlab.view.notebook import show  # stdlib only: opening the package stays light

__all__ = ["show"]
