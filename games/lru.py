"""A small process-wide LRU map, safe across threads (ASGI runs sync views in a pool).

Pages keep things here that are expensive to make and can be keyed by everything they
depend on, so an entry is never stale: only unused entries fall out."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Generic, TypeVar

V = TypeVar("V")


class ProcessLRU(Generic[V]):
    # Every map made, so that a test can start from an empty process (``clear_all``).
    _every: ClassVar[weakref.WeakSet[ProcessLRU[Any]]] = weakref.WeakSet()

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._size = size
        ProcessLRU._every.add(self)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    @classmethod
    def clear_all(cls) -> None:
        """Empty every map. For tests: a database that rolls its ids back after each test
        (SQLite's do, PostgreSQL's sequences never) hands the next test's game the same id,
        and the entries kept under it would be another game's."""
        for lru in list(cls._every):
            lru.clear()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V, *, keep: Callable[[V], bool] | None = None) -> None:
        """Store ``value``, unless ``keep(held)`` says the entry held now is to stay."""
        with self._lock:
            held = self._entries.get(key)
            if held is not None and keep is not None and keep(held):
                return
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
