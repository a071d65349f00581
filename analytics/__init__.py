"""Analytics: what the record of finished games says about setups, sides and players.

A side domain: it reads the games core (models and read layer) and the core never imports
it. Statistics from real games (``analytics.stats``) and behaviour metrics per seat
(``analytics.metrics``, begun: no pages yet).
"""
