from django.urls import path

from . import api

urlpatterns = [
    path("agents/", api.AgentsView.as_view(), name="api-agents"),
    path("agents/<str:name>/", api.AgentView.as_view(), name="api-agent"),
    path("agents/<str:name>/tokens/", api.AgentTokensView.as_view(), name="api-agent-tokens"),
    path(
        "agents/<str:name>/tokens/<int:token_id>/revoke/",
        api.RevokeTokenView.as_view(),
        name="api-agent-token-revoke",
    ),
]
