"""The gateway: the only public endpoint (TLS, accounts, tokens, per-player streams)."""
