from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Mafia games"

    def ready(self) -> None:
        # Deadlines: a phase opened or moved schedules its short-range task after commit.
        from . import scheduling

        scheduling.connect()
        # The agent badge: every process rereads the agents' names after any change.
        from . import agent_roster

        agent_roster.connect()
        # A password change or reset revokes the person's API tokens.
        from .services import person_tokens

        person_tokens.connect()
