"""The games app: hosting, playing and watching forum-style Mafia games."""
