"""Command line of the LoCoMo-shaped conversation generator (``memlab/datasets/synth/locomo.py``).

The generator is memlab's synthetic-history generator (:mod:`memlab.datasets.synth`), the one the
long-horizon suites (``datasets/suitegen/long_horizon.py``) and the informative length scaler are written
by: the same world, episodes and vocabulary, told here between two friends in LoCoMo's file format. This
module re-exports it (``generate``, ``write``, ``describe``) for the benchmarks and tests that import
``locomo_like``.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_like.py --out locomo_like.json            # LoCoMo size
    PYTHONPATH=$PWD .venv/bin/python benchmarks/locomo_like.py --conversations 1 --sessions 280 --out long.json  # ~6,000 turns
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/locomo_like.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

from memlab.datasets.synth.locomo import conversation, describe, generate, write  # noqa: E402

__all__ = ["conversation", "describe", "generate", "write", "main"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=27, help="sessions per conversation (±8 when several)")
    ap.add_argument("--probes", type=int, default=199, help="questions per conversation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    write(args.out, conversations=args.conversations, sessions=args.sessions, probes=args.probes, seed=args.seed)
    print(json.dumps(describe(json.loads(args.out.read_text())), indent=1))


if __name__ == "__main__":
    main()
