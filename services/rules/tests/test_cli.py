"""`triad-rules resolve` as a checker or an operator runs it, with malformed input."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from services.rules.tests.helpers import Answers, all_at_once, check_error_line, run_resolve

GOOD = json.loads((Path(__file__).parent / "vectors" / "public.jsonl").read_text().splitlines()[0])


def resolve(stdin: str) -> tuple[int, list[dict[str, object]], str]:
    run = run_resolve(stdin)
    return run.returncode, [json.loads(line) for line in run.stdout.splitlines()], run.stderr


def broken(**changes: object) -> str:
    vector = json.loads(json.dumps(GOOD))
    for path, value in changes.items():
        target = vector
        *parents, leaf = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(leaf)] = value
        else:
            target[leaf] = value
    return json.dumps(vector)


MALFORMED: list[tuple[str, str]] = [
    ("{not json", "not JSON"),
    # a line cut short: where it ends, not "column 1" of a line after it
    ('{"name":"x"', "not JSON: Expecting ',' delimiter at column 12"),
    ("[1, 2]", "JSON object"),
    (broken(board=[None] * 8), "'board' has 8 entries; the board has 9 cells"),
    # a 4x4 board sent without its size: say that the size defaults to 3x3
    (broken(board=[None] * 16), "on the 3x3 board (9 cells); give the size of a larger"),
    (broken(cells=[None] * 16), "'cells' has 16 entries, but a vector without 'size'"),
    (
        broken(board__1__sides=[1, 1, 11, 1]),
        "board[1].sides [1, 1, 11, 1] must each be within 1..10",
    ),
    (
        broken(move__card__sides=[0, 1, 1, 1]),
        "move.card.sides [0, 1, 1, 1] must each be within 1..10",
    ),
    (broken(move__card__sides=[1, 1, 1]), "move.card.sides must be four whole numbers"),
    (broken(move__cell=1), "cell 1 already holds a card"),
    (broken(move__cell=9), "cell 9 is not on the 3x3 board"),
    (broken(blocked=[4]), "cell 4 is blocked"),
    (broken(blocked=[1]), "board[1] is a blocked cell"),
    (broken(rules={"same": True, "reverse": True}), "unknown rule 'reverse'"),
    (broken(rules={"same": "yes"}), "rule 'same' must be true or false"),
    (broken(move__player="C"), 'move.player must be "A" or "B"'),
    (broken(board__1__owner=None), 'board[1].owner must be "A" or "B"'),
    (broken(cells=["lava"] + [None] * 8), "cells[0]: unknown element 'lava'"),
    (broken(size=[0, 3]), "'size' must be [rows, columns]"),
    # refused at once, not after building a million-cell board (half a minute)
    (broken(size=[1000, 1000]), "'size' 1000x1000 is too large: at most 10000 cells"),
    (broken(move__card__sides=[1, True, 1, 1]), "four whole numbers"),
    # json.loads raises a plain ValueError (not JSONDecodeError) past 4300 digits
    (broken(move__cell=4321).replace("4321", "9" * 4400), "not JSON"),
]
"""Malformed lines and words of the error each gets."""


@pytest.fixture(scope="module")
def malformed_run() -> Answers:
    return all_at_once(resolve, MALFORMED)


@pytest.mark.parametrize("index", range(len(MALFORMED)), ids=[w for _, w in MALFORMED])
def test_a_malformed_vector_gets_an_error_line_naming_the_problem(
    malformed_run: Answers, index: int
) -> None:
    check_error_line(malformed_run, MALFORMED, index)


def test_the_command_goes_on_after_a_bad_line_and_keeps_the_name() -> None:
    bad = broken(rules={"reverse": True})
    code, results, _ = resolve("\n".join([json.dumps(GOOD), bad, "%%%", json.dumps(GOOD)]) + "\n")
    assert code == 1
    assert [r.get("name") for r in results] == [GOOD["name"], GOOD["name"], None, GOOD["name"]]
    assert "error" in results[1] and "error" in results[2]
    assert results[3]["captures"] == GOOD["expect"]["captures"]


def test_an_error_names_the_line_it_was_read_from_blank_lines_counted() -> None:
    """Found from outside: blank lines get no answer, so an error's place in the
    answers was not its line; the error now says which line (and, of several files
    named, which file: see the test of files below)."""
    lines = [json.dumps(GOOD), "", "   ", broken(move__cell=1), json.dumps(GOOD)]
    code, results, _ = resolve("\n".join(lines) + "\n")
    assert code == 1 and len(results) == 3
    said = str(results[1]["error"])
    assert said.startswith("line 4: move.cell: cell 1 already holds a card"), results


def test_a_rule_written_off_needs_no_knowing_but_an_unknown_one_on_is_refused() -> None:
    """Found from outside: a standard vector naming a rule it does not play, written
    false (a Realm module, Sudden Death), failed whole; off is off, whatever its name.
    Asked for, an unknown rule is still refused rather than ignored."""
    off = json.loads(broken(rules=dict(GOOD["rules"], cursed=False, sudden_death=False)))
    code, results, _ = resolve(json.dumps(off) + "\n" + broken(rules={"cursed": True}) + "\n")
    assert code == 1
    assert results[0]["captures"] == GOOD["expect"]["captures"]
    assert "unknown rule 'cursed'" in str(results[1]["error"]), results


def test_good_input_exits_zero_and_ignores_expect() -> None:
    vector = dict(GOOD, expect={"owners": [], "captures": {"0": "nonsense"}})
    code, results, _ = resolve(json.dumps(vector) + "\n\n")
    assert code == 0
    assert results == [
        {
            "name": GOOD["name"],
            "owners": GOOD["expect"]["owners"],
            "captures": GOOD["expect"]["captures"],
        }
    ]


def test_a_side_written_a_reads_as_ten_as_the_rulebook_prints_it() -> None:
    """RULES.md 1: "A is written for 10"; a vector may write a side either way."""
    as_letters = json.loads(broken(board__1__sides=[1, 1, "A", 1]))
    as_letters["move"]["card"]["sides"] = ["A", 7, 2, 3]
    as_numbers = json.loads(broken(board__1__sides=[1, 1, 10, 1]))
    as_numbers["move"]["card"]["sides"] = [10, 7, 2, 3]
    code, results, _ = resolve(f"{json.dumps(as_letters)}\n{json.dumps(as_numbers)}\n")
    assert code == 0
    assert results[0] == results[1]
    assert results[0]["captures"] == {"1": "same", "5": "same"}
    beaten = json.loads(broken(board__1__sides=[1, 1, 9, 1], rules={}))
    beaten["move"]["card"]["sides"] = ["A", 1, 1, 1]
    code, results, _ = resolve(json.dumps(beaten) + "\n")
    assert (code, results[0]["captures"]) == (0, {"1": "basic"})


def test_each_answer_is_the_expected_line_as_text_captures_in_cell_order() -> None:
    """The conformance files write ``expect.captures`` in ascending cell order; a checker
    comparing lines as text (or a JSON object by key order) must find ours equal too.
    Before, captures came in the order taken (special, basic, then Combo)."""
    here = Path(__file__).parent / "vectors"
    vectors = [
        json.loads(line)
        for name in ("public.jsonl", "realm_public.jsonl")  # shared/conformance's own
        for line in (here / name).read_text().splitlines()
    ]
    run = run_resolve("".join(json.dumps(v) + "\n" for v in vectors))
    assert run.returncode == 0
    expected = [json.dumps({"name": v["name"], **v["expect"]}) for v in vectors]
    assert run.stdout.splitlines() == expected


def test_an_optional_field_written_null_reads_as_left_out() -> None:
    """README: ``size`` defaults to [3, 3], ``blocked`` is optional, a missing rule is
    off. Many JSON writers spell a field left out as null; before, ``cells``, ``name``
    and ``element`` read null as left out but ``size``, ``blocked`` and ``rules`` failed
    the line ("'size' must be [rows, columns]...")."""
    nulls = json.loads(broken(size=None, blocked=None, cells=None))
    nulls["rules"] = dict(GOOD["rules"], same_wall=None)
    code, results, stderr = resolve(json.dumps(nulls) + "\n" + broken(rules=None) + "\n")
    assert (code, stderr) == (0, "")
    assert results[0]["captures"] == GOOD["expect"]["captures"]
    assert results[1]["captures"] == {}  # no rule on: nothing but basic, none here


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_answers_that_cannot_be_written_fail_with_a_message_not_a_traceback() -> None:
    """Standard output on a full disk: before, an OSError traceback (and exit 1 only by
    accident); now one line saying what failed, and exit 1."""
    with open("/dev/full", "w") as full:
        run = run_resolve((json.dumps(GOOD) + "\n") * 5000, stdout=full, stderr=subprocess.PIPE)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.strip() == "triad-rules: cannot write the answers: No space left on device"


def test_each_answer_is_written_before_the_next_line_is_read() -> None:
    """A checker may keep one ``resolve`` process and send vectors one at a time, reading
    each answer before it writes the next. Before, with standard output a pipe (and no
    PYTHONUNBUFFERED), the answers sat in Python's buffer until the input ended: such a
    checker waited for ever."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with subprocess.Popen(
        [sys.executable, "-m", "services.rules.cli", "resolve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        for _ in range(2):
            process.stdin.write(json.dumps(GOOD) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 20)
            assert ready, "no answer while the input stays open"
            assert json.loads(process.stdout.readline())["captures"] == GOOD["expect"]["captures"]
        process.stdin.close()
        assert process.wait(20) == 0


def test_help_reads_as_plain_text() -> None:
    """``triad-rules --help`` shows the module docstring's first paragraph; before, with
    its reStructuredText quotes ("``triad-rules``: the rules engine ...")."""
    run = subprocess.run(
        [sys.executable, "-m", "services.rules.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0
    assert "triad-rules: the rules engine from the command line." in run.stdout
    assert "``" not in run.stdout


def test_vector_files_may_be_named_instead_of_standard_input(tmp_path: Path) -> None:
    """``triad-rules resolve vectors.jsonl`` (as an operator types it) reads the file;
    before, argparse refused the name ("unrecognized arguments")."""
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    first.write_text(json.dumps(GOOD) + "\n")
    second.write_text(broken(rules={"reverse": True}) + "\n")
    command = [sys.executable, "-m", "services.rules.cli", "resolve"]
    run = subprocess.run(
        [*command, str(first), "-", str(second)],
        input=json.dumps(GOOD) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1  # the second file's line fails
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert [a.get("captures") for a in answers[:2]] == [GOOD["expect"]["captures"]] * 2
    assert answers[2]["error"].startswith(f"{second} line 1: unknown rule 'reverse'")
    missing = subprocess.run(
        [*command, str(tmp_path / "none.jsonl")], capture_output=True, text=True, check=False
    )
    assert missing.returncode == 2
    assert (
        missing.stderr
        == f"triad-rules: cannot read {tmp_path / 'none.jsonl'}: No such file or directory\n"
    )


def test_input_is_read_as_utf_8_whatever_the_locale() -> None:
    """JSON text is UTF-8; before, a name was decoded in the locale's encoding (Windows'
    code page, PYTHONIOENCODING) and echoed garbled: "café" came back "cafÃ©"."""
    run = subprocess.run(
        [sys.executable, "-m", "services.rules.cli", "resolve"],
        input=(json.dumps(GOOD | {"name": "café"}, ensure_ascii=False) + "\n").encode(),
        capture_output=True,
        env=os.environ | {"PYTHONIOENCODING": "latin-1"},
        check=False,
    )
    assert run.returncode == 0
    assert json.loads(run.stdout)["name"] == "café"
