"""`make bench`: the arena's speed against baselines measured in the same run (see `bench.run`)."""
