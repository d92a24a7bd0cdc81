"""Anthropic request bodies with and without their `cache_control` marks: marks move between
requests (the policy picks their TTLs), the content they mark must not."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def strip_cache_control(value: Any) -> Any:
    """The wire value without `cache_control` markers (they move; the content must not)."""
    if isinstance(value, Mapping):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return copy.deepcopy(value)


def cache_marks(body: Any) -> list[object]:
    """Every `cache_control` mark in a request body, in document order."""
    if isinstance(body, Mapping):
        found = [body["cache_control"]] if "cache_control" in body else []
        return found + [m for v in body.values() for m in cache_marks(v)]
    if isinstance(body, list):
        return [m for v in body for m in cache_marks(v)]
    return []
