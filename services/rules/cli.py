"""``triad-rules``: the rules engine from the command line.

``triad-rules resolve`` reads placement vectors as JSON Lines on standard input, or from
the files it is given in turn (``-`` is standard input); any ``expect`` is ignored. It
writes one JSON line per vector, each as soon as it is resolved: the owners after the
placement and every capture with its cause. A vector with ``"family": "realm"`` is
resolved by the Realm rules (RULES.md section 17, :mod:`services.rules.realm`);
standard and Realm vectors may be mixed in one input. A malformed line gets one line
``{"name": ..., "error": "what is wrong"}`` and the command goes on; it exits 1 if any
line failed.

``triad-rules solve`` reads positions (the vector format with both hands and the side to
move instead of a move; see :mod:`services.rules.positions`) as JSON Lines, one
JSON object, or a JSON array of them, and writes one JSON line per position: the exact
value (final score difference for the side to move under perfect play), the final
scores, the result and a best move. Errors are reported as for ``resolve``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from services.rules.errors import RuleViolation
from services.rules.positions import parse_position, solution_json
from services.rules.realm.vectors import (
    is_realm,
    parse_realm_vector,
    realm_result_json,
    run_realm_vector,
)
from services.rules.solver import INF, Search, solve
from services.rules.vectors import (
    VectorError,
    load_line,
    parse_vector,
    result_json,
    run_vector,
)

T = TypeVar("T")


def resolve_lines(lines: Iterable[str], out: TextIO, source: str = "") -> int:
    """Resolve every vector in ``lines``; return how many failed. An error names the
    line it was read from (of ``source``, a file's name, when several are read): blank
    lines give no answer, so the answers alone do not tell (found from outside)."""
    failed = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        reply, ok = _answer(load_line, line, _resolved, f"{source} line {number}".lstrip())
        failed += not ok
        out.write(json.dumps(reply) + "\n")
        # Each answer goes out before the next line is read: a checker may send one
        # vector at a time and wait for its answer (a pipe is otherwise block-buffered).
        out.flush()
    return failed


def _resolved(name: Any, raw: dict[str, Any]) -> dict[str, Any]:
    if is_realm(raw):
        realm_board, realm_placement = run_realm_vector(parse_realm_vector(raw))
        return realm_result_json(name, realm_board, realm_placement)
    board, placement = run_vector(parse_vector(raw))
    return result_json(name, board, placement)


def _answer(
    read: Callable[[T], dict[str, Any]],
    item: T,
    answer: Callable[[Any, dict[str, Any]], dict[str, Any]],
    where: str,
) -> tuple[dict[str, Any], bool]:
    """The reply to one input (``answer(name, raw)`` of the object ``read(item)`` gives)
    and whether it succeeded; a bad input becomes ``{"name": ..., "error": ...}``, the
    error led by ``where`` it was read ("line 7")."""
    name: Any = None
    try:
        raw = read(item)
        name = raw.get("name")
        return answer(name, raw), True
    except (VectorError, RuleViolation) as exc:
        said = f"{where}: {exc}"
        return {"name": name if isinstance(name, str) else None, "error": said}, False
    except RecursionError:
        said = f"{where}: not JSON this command accepts: nested too deeply"
        return {"name": None, "error": said}, False


def _documents(text: str) -> list[str | Parsed]:
    """The positions in ``text``: one JSON value (an object, or an array of them,
    possibly spread over several lines), else JSON Lines. Items are raw lines still to
    parse, or values already parsed."""
    text = text.removeprefix("\ufeff")  # a byte-order mark (some editors write one)
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError, or a 4300+ digit integer
        # Lines end at line feeds only: str.splitlines would also cut at U+2028 and
        # other characters JSON allows raw inside a string (a carriage return before
        # the feed is stripped by load_line).
        return [line for line in text.split("\n") if line.strip()]
    return [Parsed(item) for item in (whole if isinstance(whole, list) else [whole])]


@dataclass(frozen=True, slots=True)
class Parsed:
    value: Any


def _position_object(item: str | Parsed) -> dict[str, Any]:
    value = item.value if isinstance(item, Parsed) else load_line(item, "position")
    if not isinstance(value, dict):
        raise VectorError(f"a position is a JSON object, got {type(value).__name__}")
    return value


def solve_text(text: str, out: TextIO, wdl: bool = False, moves: bool = False) -> int:
    """Solve every position in ``text``; return how many failed."""

    def solved(name: Any, raw: dict[str, Any]) -> dict[str, Any]:
        problem = parse_position(raw)
        if moves:
            search = Search(problem.position)
            solution = search.best(None, (-1, 1) if wdl else (-INF, INF))
            values = search.values(None)
        else:
            solution, values = solve(problem.position, wdl=wdl), None
        return solution_json(name, problem, solution, wdl, values)

    failed = 0
    for number, item in enumerate(_documents(text), 1):
        reply, ok = _answer(_position_object, item, solved, f"position {number}")
        failed += not ok
        out.write(json.dumps(reply) + "\n")
        out.flush()  # positions can take seconds each: show each answer as it comes
    return failed


def _open(path: str) -> TextIO:
    """A file of vectors (``-``: standard input), undecodable bytes read as U+FFFD."""
    if path == "-":
        return sys.stdin
    return open(path, encoding="utf-8", errors="replace")


def main(argv: list[str] | None = None) -> int:
    # The docstring's first paragraph, without its reStructuredText quotes (``x``).
    parser = argparse.ArgumentParser(
        prog="triad-rules", description=__doc__.split("\n\n")[0].replace("``", "")
    )
    commands = parser.add_subparsers(dest="command", required=True)
    resolver = commands.add_parser(
        "resolve", help="resolve placement vectors (JSON Lines on stdin, results on stdout)"
    )
    resolver.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="read the vectors from these JSON Lines files in turn instead of standard "
        "input (- is standard input)",
    )
    solver = commands.add_parser(
        "solve",
        help="solve positions exactly: value, final scores and a best move "
        "(JSON on stdin, one result line per position on stdout)",
    )
    solver.add_argument(
        "--wdl",
        action="store_true",
        help="settle only win, draw or loss (faster; no value or scores)",
    )
    solver.add_argument(
        "--moves", action="store_true", help="also give the exact value of every distinct move"
    )
    args = parser.parse_args(argv)
    # JSON is UTF-8 (RFC 8259) whatever the locale says (Windows, PYTHONIOENCODING);
    # undecodable bytes become U+FFFD so the line fails as "not JSON", not as a traceback.
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    if args.command == "resolve":
        try:
            inputs = [_open(path) for path in args.files or ["-"]]
        except OSError as exc:
            print(f"triad-rules: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
            return 2
    try:
        if args.command == "resolve":
            named = len(inputs) > 1
            sources = zip(inputs, args.files if named else [""], strict=True)
            failed = sum(resolve_lines(f, sys.stdout, source) for f, source in sources)
            return 1 if failed else 0
        return 1 if solve_text(sys.stdin.read(), sys.stdout, args.wdl, args.moves) else 0
    except BrokenPipeError:  # the reader went away (`| head`): not our failure
        sys.stderr.close()
        return 0
    except OSError as exc:  # the answers cannot be written (a full disk, an I/O error)
        print(f"triad-rules: cannot write the answers: {exc.strerror or exc}", file=sys.stderr)
        # The unwritten rest would fail again when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
