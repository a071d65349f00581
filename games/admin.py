"""Plain admin pages: for looking, and for emergencies (state changes belong in services)."""

from django.contrib import admin

from . import models


class SlotInline(admin.TabularInline):
    model = models.Slot
    extra = 0
    fields = ("seat", "user", "role", "alignment", "alive", "death_cause", "revealed_role")
    raw_id_fields = ("user",)


@admin.register(models.Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("title", "host", "ruleset", "status", "phase_number", "winner", "created_at")
    list_filter = ("status", "ruleset")
    search_fields = ("title", "host__username")
    inlines = [SlotInline]


@admin.register(models.Phase)
class PhaseAdmin(admin.ModelAdmin):
    list_display = ("game", "number", "kind", "deadline", "resolved")
    list_filter = ("kind", "resolved")


@admin.register(models.Post)
class PostAdmin(admin.ModelAdmin):
    list_display = ("game", "thread", "number", "author", "is_host", "created_at")
    list_filter = ("thread",)
    search_fields = ("body",)


for model in (
    models.Slot,
    models.Replacement,
    models.Vote,
    models.Nomination,
    models.NightAction,
    models.PrivateResult,
    models.GameEvent,
):
    admin.site.register(model)


class ApiTokenAdmin(admin.ModelAdmin):
    """A token's key is never stored, only its hash: the admin can look and revoke (set
    ``revoked_at``), not read a key."""

    list_display = ("prefix", "owner", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("key_hash", "prefix", "created_at", "last_used_at")
    search_fields = ("prefix", "name")

    @admin.display(description="owner")
    def owner(self, token: models.ApiToken) -> str:
        if isinstance(token, models.AgentToken):
            return f"agent {token.agent.user.get_username()}"
        assert isinstance(token, models.PersonToken)
        return token.user.get_username()


admin.site.register(models.AgentToken, ApiTokenAdmin)
admin.site.register(models.PersonToken, ApiTokenAdmin)
