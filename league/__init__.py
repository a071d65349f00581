"""The league's side of rated play that the games core does not need: duplicate series
(one deal replayed with the entrants rotated through the seats) and the baseline ladder.

A side domain: it uses the games core's services and reads, and the core never imports it.
"""
