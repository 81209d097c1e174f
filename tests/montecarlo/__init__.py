"""The Monte Carlo sample bot: its simulator against the engine, its decisions, its deadline."""
