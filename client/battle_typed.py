"""What the player types at the Skirmish screen, read into requests: the formation
(``r c r c r c``) and each turn's plan, cards by their number in the hand with their
targets (``0 1 0; 2 row 1; 3 col 0; 4``); and the server's refusal of a plan in the
words the player typed (``refusal_words``)."""

from __future__ import annotations

import re

from triad.v1 import common_pb2 as pb

from client.connection import ClientError


def parse_squares(line: str) -> list[pb.BattleSquare]:
    """``r c r c r c``: one square per character, in the team's order."""
    numbers = line.replace(",", " ").split()
    if len(numbers) != 6 or not all(n in "012" and n for n in numbers):
        raise ClientError("type three squares as row and column, 0..2 each: 0 0 1 0 2 1")
    values = [int(n) for n in numbers]
    return [pb.BattleSquare(row=values[i], col=values[i + 1]) for i in range(0, 6, 2)]


def _target(words: list[str], where: str) -> pb.BattleTarget:
    def number(text: str) -> int:
        if text not in ("0", "1", "2"):
            raise ClientError(f"{where}: rows and columns are 0..2, not {text!r}")
        return int(text)

    if not words:
        return pb.BattleTarget()
    if len(words) == 2 and words[0] in ("row", "col"):
        value = number(words[1])
        return pb.BattleTarget(row=value) if words[0] == "row" else pb.BattleTarget(col=value)
    if len(words) == 2:
        return pb.BattleTarget(row=number(words[0]), col=number(words[1]))
    raise ClientError(f"{where}: a target is 'r c', 'row R', 'col C' or nothing")


def _parts(line: str) -> list[str]:
    return [p for p in (p.strip() for p in line.split(";")) if p]


def parse_plan(line: str, view: pb.BattleView) -> list[pb.BattleAction]:
    """``card [target]; card [target]; ...`` with cards by their number in the hand. A
    card on CT is refused here, with when it is played again (the hand says it)."""
    actions = []
    for part in _parts(line):
        words = part.split()
        hand = view.you.hand
        if not words[0].isdigit() or not 0 <= int(words[0]) < len(hand):
            raise ClientError(f"{words[0]!r}: your cards are numbered 0..{len(hand) - 1}")
        card = hand[int(words[0])]
        where = f"card {words[0]} ({card.name})"
        if card.cooling:
            turns = f"{card.cooling} turn{'s' if card.cooling != 1 else ''}"
            raise ClientError(f"{where} is on CT: playable again in {turns}")
        target = _target(words[1:], where)
        actions.append(pb.BattleAction(character=card.owner, card=card.id, target=target))
    return actions


_ACTION = re.compile(r"\byour action (\d+)\b")
_SQUARE = re.compile(r"\{row (-?\d+), col (-?\d+)\}")
_LINE = re.compile(r"\{(row|col) (-?\d+)\}")
_CHOICES = re.compile(r"\[([^\[\]]*)\]")


def refusal_words(said: str, line: str) -> str:
    """The server's refusal of the plan typed as ``line``, in the words typed: its
    actions, which it counts from 1 in the order sent ("your action 2"), by the card's
    number in the hand as typed ("your card 3"), and its targets as typed ("{row 1, col
    2}" is "1 2", "{col 0}" "col 0", a list of them "one of 0 0, 1 0"). Found from
    outside: "action 1" read as the card numbered 1 (the hand counts from 0), and the
    squares were written as nothing one types. The server's words stay as they are for
    the other clients (the browser counts the plan's actions from 1 as it lists them)."""
    typed = [part.split()[0] for part in _parts(line)]

    def card(found: re.Match[str]) -> str:
        index = int(found.group(1)) - 1
        return f"your card {typed[index]}" if 0 <= index < len(typed) else found.group(0)

    said = _ACTION.sub(card, said)
    said = _SQUARE.sub(r"\1 \2", said)
    said = _LINE.sub(r"\1 \2", said)
    return _CHOICES.sub(r"\1", said)
