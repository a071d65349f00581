"""The host's chat webhook (Discord, Slack): a side domain of the games core.

The core announces (``services.announcements``) and knows nothing of webhooks; this app
follows its announcements (``games.hooks.on_announcement``), adds its section and actions to
the host's dashboard and its field to the game-creation form, and delivers the posts
(``delivery``) from Celery tasks (``tasks``) or the embedded run's loop.
"""
