"""The gateway: the only public endpoint (TLS, accounts, tokens, per-player streams). It
has no game rules of its own: every game call is forwarded, as the token's player.

- ``main``: the composition root; ``config``: its settings, read once;
- ``server``: ``GatewayServicer``, composed of one mixin per subject:
  ``account_rpcs`` (accounts, tokens, the player's status, answered here),
  ``session`` (``OpenSession``: one stream per player) fed by ``pushes`` (the
  player's NATS subject, which the services publish on) and ``notices`` (what a change
  of view tells the player), with ``presence`` (each session's opening and end told to
  the match and battle services; a player gone for good leaves the queue and closes the
  table they host; the sessions of a dead gateway reported) and ``shown`` (what the
  session last showed),
  ``forward_match``, ``forward_collection``, ``forward_play`` (drafts, Trade One),
  ``forward_rating``, ``forward_matchmaker`` (RPCs forwarded to the internal services);
- ``forwarding``: what every forwarding mixin shares (stubs, public request checks, and
  ``forward``, which copies a public request to its internal RPC and back by field name);
  ``status``: the player's status gathered from every service;
- ``auth``: authentication and rate limits on every call (a token verified once;
  ``revocations``: logouts pushed between gateway replicas; ``limits``: wrong passwords,
  refused refresh tokens and new accounts, counted by the replicas together);
  ``accounts``: passwords and tokens; ``store``: the gateway's tables (accounts, refresh
  tokens, revocations, idempotency keys, sessions, rate buckets), ``schema``: every
  migration of them.

Calls to the services go through ``services.platform.downstream`` (a refusal passes on
with its message; anything else is UNAVAILABLE), request keys through
``services.platform.requests``.
"""
