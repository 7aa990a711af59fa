"""``memlab datasets ...``: dataset statistics, length scaling and the JSON Schema.

``register(subparsers)`` adds the ``datasets`` command group to the main ``memlab`` parser;
``main(argv)`` runs the group on its own (``python -m memlab.datasets.cli stats PATH``), which is
what the tests use.

    memlab datasets stats PATH... [--json]
    memlab datasets scale IN --target-tokens N --out OUT [--mode filler|informative] [--seed S] [--filler-from OTHER.yaml]
    memlab datasets threads IN --out OUT
    memlab datasets schema [--out datasets/schema.json] [--check]
"""

from __future__ import annotations

import argparse
import sys
import time


def _parse_tokens(text: str) -> int:
    from memlab.datasets.scale import parse_tokens

    try:
        return parse_tokens(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _dataset_out(text: str) -> str:
    """``--out`` of a dataset: .yaml, .yml or .json (the format follows the name), refused otherwise
    before anything is read."""
    from memlab.datasets.io import check_dataset_path

    try:
        check_dataset_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _schema_out(text: str) -> str:
    if not text.lower().endswith(".json"):
        raise argparse.ArgumentTypeError(f"{text}: the schema is JSON; name the file .json")
    return text


def _add_commands(group: argparse._SubParsersAction) -> None:
    st = group.add_parser("stats", help="conversations, sessions, turns, probes by category, token lengths",
                          description="Print statistics for native, LoCoMo or LongMemEval dataset files.")
    st.add_argument("paths", nargs="+", metavar="PATH")
    st.add_argument("--json", action="store_true", help="print JSON instead of a table")
    st.set_defaults(func=cmd_stats)

    sc = group.add_parser("scale", help="lengthen a dataset with inserted sessions up to a token target",
                          description="Deterministically lengthen every conversation with sessions interleaved "
                                      "between its sessions until the dataset holds about N cl100k tokens: "
                                      "filler (chit-chat) or informative (new people, updates, distractors).")
    sc.add_argument("input", metavar="IN")
    sc.add_argument("--target-tokens", "-n", required=True, type=_parse_tokens, metavar="N", help="e.g. 10000, 100k, 1M")
    sc.add_argument("--out", "-o", required=True, metavar="OUT", type=_dataset_out,
                    help="output file: .yaml/.yml (YAML) or .json (JSON); written atomically, may be IN")
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument("--filler-from", metavar="OTHER", help="take filler sessions from this dataset's conversations")
    sc.add_argument("--mode", choices=["filler", "informative"], default=None,
                    help="filler: impersonal chit-chat (the default); informative: sessions of new people, their "
                         "updates and distractors (real chat's density; probes stay valid)")
    sc.add_argument("--filler", choices=["chitchat", "informative", "conversations"],
                    help="inserted sessions' source (default: conversations with --filler-from, else --mode)")
    sc.set_defaults(func=cmd_scale)

    th = group.add_parser("threads", help="split every session of multi-session conversations into its own thread",
                          description="Turn every session of a multi-session conversation into its own thread (a "
                                      "conversation of the same user/namespace): each thread starts with empty "
                                      "short-term memory and only long-term memory carries over. Reads native, "
                                      "LoCoMo and LongMemEval files; writes a native dataset.")
    th.add_argument("input", metavar="IN")
    th.add_argument("--out", "-o", required=True, metavar="OUT", type=_dataset_out,
                    help="output file: .yaml/.yml (YAML) or .json (JSON); written atomically, may be IN")
    th.set_defaults(func=cmd_threads)

    sh = group.add_parser("schema", help="write (or check) the JSON Schema of the native format")
    sh.add_argument("--out", default=None, type=_schema_out, help="default: datasets/schema.json (written atomically)")
    sh.add_argument("--check", action="store_true", help="exit 1 if the file differs from the models")
    sh.set_defaults(func=cmd_schema)


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``datasets`` (with ``stats``, ``scale``, ``schema``) to a ``memlab`` subparsers object."""
    p = subparsers.add_parser("datasets", help="dataset statistics, scaling, threads and schema",
                              description="Dataset tools: stats, scale, threads, schema.")
    group = p.add_subparsers(dest="datasets_command", metavar="COMMAND")
    group.required = True
    _add_commands(group)
    return p


def cmd_stats(args: argparse.Namespace) -> int:
    from memlab.datasets.io import DatasetError
    from memlab.datasets.stats import print_stats

    try:
        print_stats(args.paths, as_json=args.json)
    except DatasetError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_scale(args: argparse.Namespace) -> int:
    from memlab.datasets.io import DatasetError
    from memlab.datasets.scale import scale_file

    t0 = time.perf_counter()
    try:
        ds = scale_file(args.input, args.target_tokens, args.out, seed=args.seed, filler_from=args.filler_from,
                        mode=args.filler or args.mode)
    except DatasetError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    n_sessions = sum(len(c.sessions) for c in ds.conversations)
    print(f"{ds.name}: {ds.meta['tokens']:,} tokens (target {args.target_tokens:,}), {len(ds.conversations)} conversations, "
          f"{n_sessions} sessions, filler={ds.meta['filler']} -> {args.out} ({time.perf_counter() - t0:.1f}s)")
    return 0


def cmd_threads(args: argparse.Namespace) -> int:
    from memlab.datasets.io import DatasetError, write_dataset_file
    from memlab.datasets.threads import load_threaded

    try:
        ds = load_threaded(args.input, "per_session")
        write_dataset_file(ds, args.out)
    except DatasetError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    users = len({c.ns for c in ds.conversations})
    print(f"{ds.name}: {users} user(s), {len(ds.conversations)} threads, "
          f"{sum(len(c.probes) for c in ds.conversations)} probes -> {args.out}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from memlab.datasets.schema import SCHEMA_PATH, schema_text, write_schema

    path = args.out or SCHEMA_PATH
    if args.check:
        try:
            current = open(path, encoding="utf-8").read()
        except OSError:
            current = None
        if current != schema_text():
            print(f"{path} is out of date; run `memlab datasets schema`", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    try:
        write_schema(path)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memlab datasets", description="Dataset tools: stats, scale, threads, schema.")
    group = parser.add_subparsers(dest="datasets_command", metavar="COMMAND")
    group.required = True
    _add_commands(group)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
