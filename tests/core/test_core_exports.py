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
from prefixlock.state import SessionState, StateField

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


def _annotated(cls: type) -> Iterator[tuple[str, Callable[..., Any] | type | dict[str, Any]]]:
    """(where, object or hints) for each public method, property, state field and the
    dataclass fields of `cls`, its bases' from `prefixlock` included (`Session` and
    `SyncSession` share the priced actions and approvals through them)."""
    yield f"{cls.__name__}", cls
    seen: set[str] = set()
    for owner in cls.__mro__:
        if not owner.__module__.startswith("prefixlock"):
            continue
        for name, member in vars(owner).items():
            if (name.startswith("_") and name != "__init__") or name in seen:
                continue
            seen.add(name)
            if isinstance(member, property) and member.fget is not None:
                yield f"{cls.__name__}.{name}", member.fget
            elif isinstance(member, StateField):
                yield f"{cls.__name__}.{name}", {name: _declared(member)}
            elif inspect.isfunction(member):
                yield f"{cls.__name__}.{name}", member


def _declared(field: StateField[Any]) -> Any:
    """The type a `StateField[T]()` was declared with."""
    return typing.get_args(field.__orig_class__)[0]  # type: ignore[attr-defined]


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
        for where, obj in _annotated(cls):
            if isinstance(obj, type) and not dataclasses.is_dataclass(obj):
                continue
            # Names resolve in the module that wrote the annotation (a base's, the session
            # method a sync one wraps).
            written = inspect.unwrap(obj) if callable(obj) else cls
            module = sys.modules[written.__module__]
            try:
                hints = (
                    obj  # a state field's declared type
                    if isinstance(obj, dict)
                    else typing.get_type_hints(obj, globalns={**_namespace(), **vars(module)})
                )
            except NameError as exc:  # a name only its module imports (for type checking)
                unexported.add(f"{exc.name} ({where})")
                continue
            for hint in hints.values():
                for found in _classes(hint):
                    if found.__module__.startswith("prefixlock") and id(found) not in exported:
                        unexported.add(f"{found.__module__}.{found.__qualname__} ({where})")
    assert not unexported, sorted(unexported)


def test_each_state_field_is_declared_with_the_state_s_type() -> None:
    """`s.prefix` is `s.state.prefix` (`StateField`): what a user sees typed on `Session` and
    `SyncSession` is the type the state holds."""
    state_types = typing.get_type_hints(SessionState)
    for name, value in vars(SessionState).items():
        if isinstance(value, property) and value.fget is not None:
            state_types[name] = typing.get_type_hints(value.fget)["return"]
    fields = [
        (cls.__name__, name, member)
        for cls in (prefixlock.Session, prefixlock.SyncSession)
        for name, member in vars(cls).items()
        if isinstance(member, StateField)
    ]
    assert {"prefix", "model", "transcript", "ledger", "requests", "previous_request"} <= {
        name for cls_name, name, _ in fields if cls_name == "Session"
    }
    for cls_name, name, member in fields:
        assert _declared(member) == state_types[name], f"{cls_name}.{name}"
