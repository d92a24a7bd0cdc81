"""The public names are exported from `prefixlock` (the way httpx checks its own): every type a
user meets in the signatures of `Agent`, `Session`, `SyncSession`, the events and the results can
be imported from the package itself, not only from the module that defines it."""

from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from typing import Any

import prefixlock

# What a user writes `from prefixlock import ...` for (the issue names these).
NAMED = [
    "Agent",
    "Session",
    "SyncSession",
    "RunResult",
    "FrozenPrefix",
    "tool",
    "Tool",
    "ToolSpec",
    "Settings",
    "Emulator",
    "Workspace",
    "StoreError",
    "Alternative",
    "Quote",
    "DelegationResult",
    "TaskProfile",
    "CacheBudget",
    "SessionStore",
    "Event",
    "TextDelta",
    "ToolCall",
    "ToolResult",
    "UsageReport",
    "CacheBreak",
    "SwitchWarning",
    "SubagentStart",
    "SubagentEvent",
    "SubagentFinish",
    "ProviderFault",
    "KeepAlivePing",
    "PrefixChanged",
    "ResumedPrefixDiffers",
    "TurnComplete",
    "Image",
    "Document",
]
# Classes whose public methods and fields make up the surface a user programs against.
SURFACE = [
    "Agent",
    "Session",
    "SyncSession",
    "RunResult",
    "DelegationResult",
    "Quote",
    "SwitchWarning",
    "ResumedPrefixDiffers",
    "UsageReport",
    "SubagentFinish",
    "Ledger",
]


def test_the_names_a_user_imports_are_exported() -> None:
    missing = [name for name in NAMED if name not in prefixlock.__all__]
    assert not missing
    for name in NAMED:
        assert getattr(prefixlock, name).__name__ == name


def _namespace() -> dict[str, Any]:
    """Names to resolve postponed annotations with: the package's exports and typing's."""
    names: dict[str, Any] = {n: getattr(prefixlock, n) for n in prefixlock.__all__}
    names.update(vars(typing))
    # Types of optional extras appear in signatures too; they are theirs to export, not ours.
    import httpx2  # the SDKs' HTTP client (Agent(http_client=))
    from opentelemetry.trace import Tracer

    names["Tracer"] = Tracer
    names["httpx2"] = httpx2
    return names


def _annotated(cls: type) -> Iterator[tuple[str, Callable[..., Any] | type]]:
    """(where, object) for each public method, property and the dataclass fields of `cls`."""
    yield f"{cls.__name__}", cls
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, property) and member.fget is not None:
            yield f"{cls.__name__}.{name}", member.fget
        elif inspect.isfunction(member):
            yield f"{cls.__name__}.{name}", member


def _classes(hint: Any) -> Iterator[type]:
    if isinstance(hint, type):
        yield hint
    for arg in typing.get_args(hint):
        yield from _classes(arg)


def test_every_type_in_the_public_signatures_is_exported() -> None:
    exported = {id(getattr(prefixlock, n)) for n in prefixlock.__all__}
    unexported: set[str] = set()
    for cls_name in SURFACE:
        cls = getattr(prefixlock, cls_name)
        module = sys.modules[cls.__module__]
        for where, obj in _annotated(cls):
            if isinstance(obj, type) and not dataclasses.is_dataclass(obj):
                continue
            try:
                hints = typing.get_type_hints(obj, globalns={**_namespace(), **vars(module)})
            except NameError as exc:  # a name only its module imports (for type checking)
                unexported.add(f"{exc.name} ({where})")
                continue
            for hint in hints.values():
                for found in _classes(hint):
                    if found.__module__.startswith("prefixlock") and id(found) not in exported:
                        unexported.add(f"{found.__module__}.{found.__qualname__} ({where})")
    assert not unexported, sorted(unexported)
