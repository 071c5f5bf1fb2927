"""The match service: event-sourced matches, the rules engine, per-player views, timers."""
