"""arena: a tournament runner for 6 nimmt! bot contests."""

__version__ = "0.1.0"
