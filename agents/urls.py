"""The agents app's pages: a person's agents, each agent's page, its tokens."""

from django.urls import URLPattern, path

from . import views

app_name = "agents"

urlpatterns: list[URLPattern] = [
    path("agents/", views.agents_page, name="mine"),
    path("agents/<str:name>/", views.agent_page, name="agent"),
    path("agents/<str:name>/edit/", views.agent_edit, name="edit"),
    path("agents/<str:name>/tokens/new/", views.agent_token_new, name="token_new"),
    path(
        "agents/<str:name>/tokens/<int:token_id>/revoke/",
        views.agent_token_revoke,
        name="token_revoke",
    ),
]
