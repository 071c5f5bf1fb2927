"""The rating service: Season 0 Elo ladders for Ranked and Draft, leaderboards."""
