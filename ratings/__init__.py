"""Ratings: a Weng-Lin rating per player, rule set and side, the leaderboard, and a player's
ratings and rated games; a side domain of the games core.

The core ends games and knows nothing of ratings: this app rates a rated game inside its
ending transaction (``games.hooks.on_game_ending``), catches up on games whose rating failed
(``missed``, from beat or the embedded run's loop), and adds its part to the player's page.
"""
