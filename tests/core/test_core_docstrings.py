"""Every public name of `prefixlock` and every public method, property and field of its
classes has a docstring of its own (a dataclass's generated `Name(field, ...)` does not count),
and what a newcomer looks up is written down: each `Agent` parameter, the output tool's name,
each event."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import prefixlock
from prefixlock.state import StateField


def _own_doc(obj: Any) -> str:
    doc = (obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__) or ""
    generated = inspect.isclass(obj) and doc.startswith(f"{obj.__name__}(")
    return "" if generated else doc.strip()


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """(name, what carries the docstring) of each public member `cls` has from prefixlock."""
    seen: set[str] = set()
    for owner in cls.__mro__:
        if not owner.__module__.startswith("prefixlock"):
            continue
        for name, member in vars(owner).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(member, StateField):
                doc = member.__doc__ if member.__doc__ != StateField.__doc__ else ""
                yield f"{owner.__name__}.{name}", doc
            elif isinstance(member, property):
                yield f"{owner.__name__}.{name}", member.fget
            elif isinstance(member, (classmethod, staticmethod)):
                yield f"{owner.__name__}.{name}", member.__func__
            elif inspect.isfunction(member):
                yield f"{owner.__name__}.{name}", member


def test_every_public_name_and_method_has_a_docstring() -> None:
    missing: list[str] = []
    counted = 0
    for name in prefixlock.__all__:
        obj = getattr(prefixlock, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not obj.__module__.startswith("prefixlock"):
            continue
        counted += 1
        if not _own_doc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            for where, carrier in _members(obj):
                counted += 1
                doc = carrier if isinstance(carrier, str) else (carrier.__doc__ or "")
                if not (doc or "").strip():
                    missing.append(where)
    assert counted > 300
    assert not missing, f"{len(missing)} of {counted} without a docstring: {sorted(set(missing))}"


def test_each_agent_parameter_is_documented() -> None:
    doc = prefixlock.Agent.__doc__ or ""
    params = [p for p in inspect.signature(prefixlock.Agent).parameters if p != "self"]
    assert len(params) >= 14
    assert [p for p in params if f"`{p}`" not in doc] == []


def test_the_output_tool_s_name_is_documented() -> None:
    assert "final_<ClassName>" in (prefixlock.output_tool.__doc__ or "")
