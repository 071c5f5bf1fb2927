"""What one player may see of a battle, as the ``BattleView`` message (BATTLE.md 6):
their own hand, plan (committed, or set with SetPlan: ``set_actions``) and Energy; of
the opponent the field (as of their own: units and the summons waiting for a square,
``reservations``), Energy and the size of the hand, whether they committed, never
their hand or plan (set or committed) before the turn resolves, nor that a plan was set
(the view's version leaves out the opponent's plans set: ``seen_version``) (the engine's
:func:`~services.battle.rules.view_for` redacts the opponent's team; plans are taken
only from the viewer's seat). ``SeatViews`` pushes each human seat its view on
``triad.player.<id>.battle`` after every committed change (a plan set: to its seat
only), building each view once per state and, within a turn (the engine's battle the
same object), only what the commit changed: both teams' messages are kept per seat and
the last turn's log per battle. A view names the cards and characters of the content the
battle recorded (``state.content_version``), not the current roster's.

Decision (BATTLE.md 6, "the opponent's hand ... hidden"): an unlocked Special goes to
its player's hand (BATTLE.md 1), so the opponent's ``unlock`` entries in a view say which
character unlocked one, not which card (``card`` empty) until it is played: that a
Special was unlocked is no secret (its condition is met on the field, in the log), the
hand is. The viewer's own unlocks name the card.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from triad.v1 import common_pb2 as pb

from services import wire
from services.battle import mapping
from services.battle.domain import SEATS, BattleState, Phase
from services.battle.rules import (
    Battle,
    Card,
    Entry,
    Roster,
    Rosters,
    Step,
    Team,
    new_battle,
    view_for,
)
from services.battle.rules.state import DEFAULT_FORMATION, effective_spd
from services.platform.pushes import PlayerPushes

PUSH = "battle"
"""The session push field (and NATS subject token) of battle views."""

STATUS = {
    Phase.FORMATION: pb.BATTLE_STATUS_FORMATION,
    Phase.SELECTION: pb.BATTLE_STATUS_SELECTION,
    Phase.FINISHED: pb.BATTLE_STATUS_FINISHED,
}


def _turns(n: int) -> str:
    return "1 turn" if n == 1 else f"{n} turns"


def card_text(card: Card) -> str:
    parts = []
    for e in card.effects:
        if e.kind == "burn":
            parts.append(f"burn {e.amount} for {_turns(e.turns)}")
        elif e.kind == "spd":
            parts.append(f"spd {e.amount:+d} for {_turns(e.turns)}")
        elif e.kind == "summon":
            parts.append(f"summon {e.unit}")
        elif e.kind == "energy":  # BATTLE.md's words: "energy +N", "energy steal N"
            parts.append(f"energy {e.amount:+d}")
        elif e.kind == "energy_steal":
            parts.append(f"energy steal {e.amount}")
        else:
            parts.append(f"{e.kind} {e.amount}")
    if card.ignore_formation:
        parts.append("ignores formation")
    return ", ".join(parts)


SQUARE = "square"
"""The range a player sees on a card that summons (``self`` in the roster: the summoner
plays it): it takes a square of its player's own field (BATTLE.md 1, common.proto's
BattleCard.range), where ``self`` takes no target."""


def card_range(card: Card) -> str:
    return SQUARE if card.summons else card.range


def _field(state: BattleState, seat: int, roster: Roster) -> Battle:
    """The engine's battle, or before turn 1 the field as the viewer's formation stands
    (the opponent's is hidden until the battle begins: their units go without squares,
    ``_team``)."""
    if state.battle is not None:
        return state.battle
    mine = state.formations[seat] or DEFAULT_FORMATION
    formations = (mine, DEFAULT_FORMATION) if seat == 0 else (DEFAULT_FORMATION, mine)
    s0, s1 = state.seats
    return new_battle(roster, (s0.characters, s1.characters), (s0.deck, s1.deck), formations)


Cards = dict[str, tuple[Card, pb.BattleCard]]
"""Each card's message without ``cooling``, by card id, beside the card it was built
from (a roster's cards never change)."""


def _card(card: Card, cooling: int, cards: Cards) -> pb.BattleCard:
    kept = cards.get(card.id)
    if kept is None or kept[0] is not card:
        message = pb.BattleCard(
            id=card.id,
            name=card.name,
            owner=card.owner,
            cost=card.cost,
            ct=card.ct,
            group=card.group,
            range=card_range(card),
            text=card_text(card),
            special=card.unlock is not None,
        )
        kept = cards[card.id] = (card, message)
    if not cooling:
        return kept[1]  # copied into the hand that takes it, never changed
    message = pb.BattleCard()
    message.CopyFrom(kept[1])
    message.cooling = cooling
    return message


def _team(
    state: BattleState, team: Team, seat: int, roster: Roster, own: bool, cards: Cards
) -> pb.BattleTeamView:
    """The team as the viewer sees it, without what a commit changes (``_flags``)."""
    record = state.seats[seat]
    cooling = dict(team.cooldowns)
    units = []
    for u in team.units:
        name = roster.characters[u.ref].name if not u.summon else roster.summons[u.ref].name
        unit = pb.BattleUnit(
            uid=u.uid,
            ref=u.ref,
            name=name,
            summon=u.summon,
            hp=u.hp,
            max_hp=u.max_hp,
            # A summon has no SPD (BATTLE.md 1; it acts in placement order): 0, whatever
            # spd effects hit it (max(1, 0 - 4) showed a slowed Thornling faster).
            spd=u.spd if u.summon else effective_spd(u),
            shield=u.shield,
            cover=u.cover,
            burn=sum(b.damage for b in u.burns),
            burn_turns=max((b.turns for b in u.burns), default=0),
            spd_turns=0 if u.summon else max((c.turns for c in u.spd_changes), default=0),
        )
        if u.square is not None and (own or state.battle is not None):
            unit.square.CopyFrom(mapping.square(u.square))  # no made-up opponent's formation
        units.append(unit)
    hand = []
    if own:
        for cid in (*team.hand, *team.specials):
            hand.append(_card(roster.cards[cid], cooling.get(cid, 0), cards))
    reservations = [
        pb.BattleReservation(
            summon=r.summon, name=roster.summons[r.summon].name, square=mapping.square(r.square)
        )
        for r in team.reservations
    ]
    return pb.BattleTeamView(
        seat=seat,
        name=record.name or ("CPU" if record.cpu else ""),
        units=units,
        reservations=reservations,
        energy=team.energy,
        hand=hand,
        # the opponent's too counts their unlocked Specials (each unlock is in the log)
        hand_size=(len(team.hand) if own else team.hand_size) + len(team.specials),
    )


def _flags(message: pb.BattleTeamView, state: BattleState, seat: int) -> None:
    message.cpu = bool(state.cpu[seat])
    away = state.away[seat]
    if away is not None and not state.over:  # once over, nobody takes a seat
        message.takeover_time.FromDatetime(away)
    message.committed = (
        state.formations[seat] is not None
        if state.phase is Phase.FORMATION
        else state.plans[seat] is not None
    )


def _teams(
    state: BattleState, seat: int, roster: Roster, cards: Cards
) -> tuple[pb.BattleTeamView, pb.BattleTeamView]:
    """The viewer's team and the opponent's, from the engine's redacted view."""
    seen = view_for(_field(state, seat, roster), seat).battle
    return (
        _team(state, seen.teams[seat], seat, roster, True, cards),
        _team(state, seen.teams[1 - seat], 1 - seat, roster, False, cards),
    )


COVERED = "covered by "
"""How the engine notes a hit a Cover unit took (``rules/resolve.py``), its uid after."""
RESERVED = "reserved by "
"""How it notes a reserved summon that appeared, its summoner's uid after (``turns.py``)."""


def _seen(entry: Entry, seat: int, roster: Roster) -> Entry:
    """An entry as ``seat`` sees it: the opponent's unlocked Special goes to their hidden
    hand, so its card is not named (the character is); a Cover note, and the note of a
    reserved summon's appearing, name their character as the fields do, not by its uid
    (it read "(reserved by 0.moss)")."""
    if entry.step is Step.UNLOCK and entry.team != seat:
        return entry._replace(card="")
    for said in (COVERED, RESERVED):
        if entry.note.startswith(said):
            ref = entry.note.removeprefix(said).partition(".")[2]
            if (character := roster.characters.get(ref)) is not None:
                return entry._replace(note=said + character.name)
    return entry


def _log(log: tuple[Entry, ...], seat: int, roster: Roster) -> list[pb.BattleLogEntry]:
    entries = [mapping.entry(_seen(e, seat, roster)) for e in log]
    for message in entries:  # found from outside: named from its id, "Bark" for Barkskin
        if message.card and (card := roster.cards.get(message.card)) is not None:
            message.card_name = card.name
    return entries


def _same_for_both(log: tuple[Entry, ...]) -> bool:
    """Whether both seats see ``log`` alike (no unlock in it, as in most turns)."""
    return all(e.step is not Step.UNLOCK for e in log)


def battle_view(state: BattleState, seat: int, roster: Roster) -> pb.BattleView:
    """What ``seat`` sees of ``state``: never the opponent's hand or plan."""
    teams = _teams(state, seat, roster, {})
    return _assemble(state, seat, *teams, _log(state.log, seat, roster))


def _assemble(
    state: BattleState,
    seat: int,
    you: pb.BattleTeamView,
    opponent: pb.BattleTeamView,
    log: list[pb.BattleLogEntry],
) -> pb.BattleView:
    view = pb.BattleView(
        battle_id=state.battle_id,
        version=state.seen_version(seat),
        status=STATUS[state.phase],
        turn=max(state.turn, 1),
        seat=seat,
        you=you,
        opponent=opponent,
        plan=mapping.plan(state.plans[seat] or ()),
        set_actions=mapping.plan(state.set_plans[seat]),
        log=log,
        content_version=state.content_version,
    )
    _flags(view.you, state, seat)
    _flags(view.opponent, state, 1 - seat)
    deadline = wire.timestamp(state.deadline)
    if deadline is not None:
        view.deadline.CopyFrom(deadline)
    if state.result is not None:
        view.outcome.CopyFrom(
            pb.BattleOutcome(
                winner_seat=state.result.winner,
                winner_player_id=state.winner_id,
                reason=state.result.reason.value,
            )
        )
    return view


KEPT = 512
"""Views kept for the state they were built from: a command's pushes and its reply."""


@dataclass(frozen=True, slots=True)
class _Kept:
    """A seat's last view, and what the next state's view may take from it: the team
    messages while ``battle`` (the engine's, an immutable value) is the same object, the
    log's messages while ``log`` is."""

    state: BattleState
    view: pb.BattleView
    battle: Battle | None
    teams: tuple[pb.BattleTeamView, pb.BattleTeamView]
    log: tuple[Entry, ...]
    log_messages: list[pb.BattleLogEntry]


class SeatViews:
    """Each seat's view of a battle, built once per state, and pushed to each human
    seat after a committed change: a command's reply is the view its push carried. A
    battle whose content is not in ``rosters`` raises ``ContentNotLoaded`` (the handlers
    refuse such a battle before)."""

    def __init__(self, pushes: PlayerPushes, rosters: Rosters, clock: Callable[[], datetime]):
        self._pushes = pushes
        self._rosters = rosters
        self._clock = clock
        self._kept: OrderedDict[tuple[str, int], _Kept] = OrderedDict()
        self._cards: dict[str, Cards] = {}
        """Per content version: two rosters may hold different cards under one id."""

    def view(self, state: BattleState, seat: int) -> pb.BattleView:
        """The seat's view of ``state``, kept by the state object's identity (so no other
        state can match it), equal to ``battle_view``'s. Callers must not change the
        message."""
        key = (state.battle_id, seat)
        kept = self._kept.get(key)
        if kept is not None and kept.state is state:
            return kept.view
        roster = self._rosters.for_version(state.content_version)
        if kept is not None and state.battle is not None and kept.battle is state.battle:
            teams = kept.teams  # the same turn: only the flags and the plan changed
        else:
            cards = self._cards.setdefault(state.content_version, {})
            teams = _teams(state, seat, roster, cards)
        other = self._kept.get((state.battle_id, 1 - seat))
        log = self._log_of(state, seat, roster, kept, other)
        view = _assemble(state, seat, *teams, log)
        self._kept[key] = _Kept(state, view, state.battle, teams, state.log, log)
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return view

    @staticmethod
    def _log_of(
        state: BattleState, seat: int, roster: Roster, mine: _Kept | None, other: _Kept | None
    ) -> list[pb.BattleLogEntry]:
        """The last turn's log as ``seat`` sees it, taken from its last view if built from
        the same log, or from the other seat's when both see that log alike."""
        if mine is not None and mine.log is state.log:
            return mine.log_messages
        if other is not None and other.log is state.log and _same_for_both(state.log):
            return other.log_messages
        return _log(state.log, seat, roster)

    async def announce(self, state: BattleState, seats: tuple[int, ...] = SEATS) -> None:
        """Push each human of ``seats`` its view of ``state``."""
        for seat, player in state.humans():
            if seat in seats:
                await self._pushes.send(player, PUSH, self.view(state, seat))
