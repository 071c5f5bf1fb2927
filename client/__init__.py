"""``triad-client``: a terminal client that speaks only gRPC to the gateway."""

import os

# gRPC's own log lines (a failed TLS handshake, say) are not for a player: the client
# says what went wrong in one line of its own. Set before grpc is first imported.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")
