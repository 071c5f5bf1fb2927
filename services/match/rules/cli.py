"""``triad-rules``: the rules engine from the command line.

``triad-rules resolve`` reads placement vectors as JSON Lines on standard input (any
``expect`` is ignored) and writes one JSON line per vector: the owners after the
placement and every capture with its cause. A malformed line gets one line
``{"name": ..., "error": "what is wrong"}`` and the command goes on; it exits 1 if any
line failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from services.match.rules.errors import RuleViolation
from services.match.rules.vectors import (
    VectorError,
    load_line,
    parse_vector,
    result_json,
    run_vector,
)


def resolve_lines(lines: Iterable[str], out: TextIO) -> int:
    """Resolve every vector in ``lines``; return how many failed."""
    failed = 0
    for line in lines:
        if not line.strip():
            continue
        name: Any = None
        try:
            raw = load_line(line)
            name = raw.get("name")
            vector = parse_vector(raw)
            board, placement = run_vector(vector)
            reply = result_json(name, board, placement)
        except (VectorError, RuleViolation) as exc:
            failed += 1
            reply = {"name": name if isinstance(name, str) else None, "error": str(exc)}
        except RecursionError:
            failed += 1
            reply = {"name": None, "error": "not JSON this command accepts: nested too deeply"}
        out.write(json.dumps(reply) + "\n")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triad-rules", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "resolve", help="resolve placement vectors (JSON Lines on stdin, results on stdout)"
    )
    args = parser.parse_args(argv)
    if args.command == "resolve":
        # Undecodable bytes become U+FFFD so the line fails as "not JSON", not as a traceback.
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]
        try:
            return 1 if resolve_lines(sys.stdin, sys.stdout) else 0
        except BrokenPipeError:  # the reader went away (`| head`): not our failure
            sys.stderr.close()
            return 0
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
