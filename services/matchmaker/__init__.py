"""The matchmaker: queues per mode, pairing, the custom-table lobby, bot seats."""
