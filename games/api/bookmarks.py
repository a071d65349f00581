"""The signed-in person's bookmarks in the JSON API: list, bookmark a post, edit the note,
remove one.

The same read (``games.reads.bookmarks``) and services (``games.services.bookmarks``) as
the "My bookmarks" page; only ever the caller's own rows, and only posts they may read
now. A post is named as everywhere in the API: its game, thread and number."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from ..fragments import post_url
from ..models import Thread
from ..reads.bookmarks import BookmarkItem, item, my_bookmarks
from ..services import bookmarks as bookmark_services
from . import docs
from . import serializers as s
from .views import GameAPIView, _valid, absolute


class BookmarkSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The bookmark's id (PATCH and DELETE it by it).")
    game_id = serializers.IntegerField()
    game_title = serializers.CharField()
    thread = serializers.ChoiceField(choices=Thread.choices)
    number = serializers.IntegerField(help_text="The post's number in its thread.")
    author = serializers.CharField(help_text="The post's author, as the thread signs it.")
    excerpt = serializers.CharField(allow_blank=True, help_text="The post's opening words.")
    note = serializers.CharField(allow_blank=True)
    link = serializers.URLField(help_text="The post in its thread's page (absolute).")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class BookmarkListSerializer(serializers.Serializer):
    results = BookmarkSerializer(many=True)


class NewBookmarkSerializer(s.InputSerializer):
    game_id = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    thread = serializers.ChoiceField(choices=Thread.choices, default=Thread.PUBLIC)
    number = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    note = serializers.CharField(
        max_length=bookmark_services.MAX_NOTE_LENGTH,
        allow_blank=True,
        required=False,
        default="",
        help_text="Your private note: nobody else ever sees it.",
    )


class BookmarkNoteSerializer(s.InputSerializer):
    # Not required, as a PATCH's fields are not: without it the note stays as it is.
    note = serializers.CharField(
        max_length=bookmark_services.MAX_NOTE_LENGTH,
        allow_blank=True,
        required=False,
        help_text="Your private note: nobody else ever sees it.",
    )


def bookmark_data(request: Request, bookmark: BookmarkItem) -> dict[str, Any]:
    return {
        "id": bookmark.id,
        "game_id": bookmark.game_id,
        "game_title": bookmark.game_title,
        "thread": bookmark.thread,
        "number": bookmark.number,
        "author": bookmark.author,
        "excerpt": bookmark.excerpt,
        "note": bookmark.note,
        "link": absolute(request, post_url(bookmark.game_id, bookmark.number, bookmark.thread)),
        "created_at": bookmark.created_at,
        "updated_at": bookmark.updated_at,
    }


class BookmarksView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(BookmarkListSerializer)
    def get(self, request: Request) -> Response:
        """Your bookmarks, newest first: only of posts you may read now (a dead player's
        mafia chat is not listed until the game ends)."""
        return Response(
            {"results": [bookmark_data(request, b) for b in my_bookmarks(request.user)]}
        )

    # 201 for a new bookmark, 200 for one already there: both answers are documented.
    @extend_schema(
        request=NewBookmarkSerializer,
        parameters=[docs.RETRY_AFTER],
        responses={
            **docs._responses(
                BookmarkSerializer, 201, {*docs._EVERY_OPERATION, 409, 413, 415, 422}
            ),
            200: BookmarkSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        """Bookmark a post you may read (a thread you may not read answers 404); a post you
        bookmarked already keeps its bookmark and gets the new note (200)."""
        data = _valid(NewBookmarkSerializer, request)
        bookmark, created = bookmark_services.bookmark_post(
            request.user, data["game_id"], data["number"], thread=data["thread"], note=data["note"]
        )
        return Response(bookmark_data(request, item(bookmark)), status=201 if created else 200)


class BookmarkView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(BookmarkSerializer, request=BookmarkNoteSerializer)
    def patch(self, request: Request, bookmark_id: int) -> Response:
        """Change the note of one of your bookmarks."""
        data = _valid(BookmarkNoteSerializer, request)
        bookmark = bookmark_services.edit_bookmark(request.user, bookmark_id, note=data.get("note"))
        return Response(bookmark_data(request, item(bookmark)))

    @docs.write(s.OkSerializer)
    def delete(self, request: Request, bookmark_id: int) -> Response:
        """Remove one of your bookmarks."""
        bookmark_services.remove_bookmark(request.user, bookmark_id)
        return Response({"ok": True})
