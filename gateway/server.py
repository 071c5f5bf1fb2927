"""The TriadGateway servicer: the public API, one mixin per subject. The caller is always
the token's player; no request names a player.

- ``account_rpcs``: accounts, tokens and the player's status, answered here;
- ``session``: the session stream (``OpenSession``), fed by the player's pushes
  (``pushes``: NATS subjects the services publish on);
- ``forward_match``, ``forward_collection``, ``forward_play`` (drafts, Trade One),
  ``forward_rating``, ``forward_matchmaker``, ``forward_battle`` (Skirmish): RPCs
  forwarded to the internal services with the token's player (``forwarding``).

A service this gateway is not configured to reach answers UNAVAILABLE ("not configured
here"), which a client can tell from a refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from triad.v1 import (
    battle_pb2_grpc,
    collection_pb2_grpc,
    gateway_pb2_grpc,
    match_pb2_grpc,
    matchmaker_pb2_grpc,
    rating_pb2_grpc,
)

from gateway import accounts
from gateway.account_rpcs import AccountRpcs
from gateway.auth import Authenticator
from gateway.forward_battle import BattleRpcs
from gateway.forward_collection import CollectionRpcs
from gateway.forward_match import MatchRpcs
from gateway.forward_matchmaker import MatchmakerRpcs
from gateway.forward_play import PlayRpcs
from gateway.forward_rating import RatingRpcs
from gateway.presence import Departures
from gateway.pushes import PushHub
from gateway.session import SessionRpcs
from gateway.store import GatewayStore


class GatewayServicer(
    SessionRpcs,
    AccountRpcs,
    MatchRpcs,
    CollectionRpcs,
    PlayRpcs,
    RatingRpcs,
    MatchmakerRpcs,
    BattleRpcs,
    gateway_pb2_grpc.TriadGatewayServicer,
):
    def __init__(
        self,
        store: GatewayStore,
        signer: accounts.TokenSigner,
        auth: Authenticator,
        match: match_pb2_grpc.MatchServiceAsyncStub,
        *,
        matchmaker: matchmaker_pb2_grpc.MatchmakerServiceAsyncStub | None = None,
        collection: collection_pb2_grpc.CollectionServiceAsyncStub | None = None,
        rating: rating_pb2_grpc.RatingServiceAsyncStub | None = None,
        battle: battle_pb2_grpc.BattleServiceAsyncStub | None = None,
        hub: PushHub | None = None,
        heartbeat_seconds: float = 10.0,
        queue_away_seconds: float = 15.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._signer = signer
        self._auth = auth
        self._match = match
        self._matchmaker = matchmaker
        self._collection = collection
        self._rating = rating
        self._battle = battle
        self._heartbeat = heartbeat_seconds
        self._clock = clock
        self._hub = hub if hub is not None else PushHub(None)
        self.departures = Departures()
        self.away = Departures(queue_away_seconds)
