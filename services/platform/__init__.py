"""What every service shares and nothing game-specific: event store, outbox, bus, bootstrap."""
