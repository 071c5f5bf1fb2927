"""The collection's rules: pure values, events and decisions (no I/O, clock or global
random; the handlers pass time and random draws in).

- ``catalog``: the 112 characters and their filters.
- ``events``: the events of ``player-<id>``, ``trade-<id>`` and ``draft-<id>`` streams
  and the values they carry (``Holder``, ``PlayerRef``...); ``copies``: ``OwnedCopy``
  and its ``CopySource``, carried by those and by ``events_auction``'s.
- ``wealth``: copies coming into existence (starter, grants), coins in and out, and
  what a finished match pays for playing it.
- ``decks``: saving a deck, the Random deck, locks (RULES.md 2, 6, 9).
- ``boosters``: the verifiable booster draw (``FAIRNESS.md``); ``seeds``: the server
  seed's commitment, rotation and reveal, and opening a booster.
- ``trade``: Trade One (RULES.md 7) as a fold of its stream and its decisions.
- ``draft``: draft boosters and completions; ``draft_session``: a draft (RULES.md 8) as
  a fold of its stream and its decisions.
- ``auction``: an Auction House listing (RULES.md 15) as a fold of its stream, its
  decisions (list, cancel, buy with the 5% fee rounded down, expire) and browsing;
  ``events_auction``: the events of ``listing-<id>`` streams.
"""
