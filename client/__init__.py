"""``triad-client``: a terminal client that speaks only gRPC to the gateway."""
