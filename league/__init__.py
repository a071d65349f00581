"""The league: the standing matchmaking queues of rated league games (``formats``,
``services``, ``reads``, the live page ``live``), duplicate series (one deal replayed with
the entrants rotated through the seats), the baseline ladder and blind games' guesses.

A side domain: it uses the games core's services, reads and live package, and the core
never imports it (it reaches the league only through ``games.hooks``).
"""
