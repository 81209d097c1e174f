"""Pure statistics over stored games: the sequential test of a comparison (`sprt`), the fitted
strength of every bot with its bootstrap intervals (`fit`), and the pairing of a comparison's
deals (`pairs`). No I/O, no clock."""
