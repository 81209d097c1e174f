"""`python -m arena.cli`: the `arena` command, as the tests and scripts start it."""

from arena.cli import main

main()
