"""A small process-wide LRU map, safe across threads (ASGI runs sync views in a pool).

Pages keep things here that are expensive to make and can be keyed by everything they
depend on, so an entry is never stale: only unused entries fall out."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class ProcessLRU(Generic[V]):
    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._size = size

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
