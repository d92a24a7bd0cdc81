"""FrozenPrefix: the system prompt and tool specs, serialized once, never changed.

A prefix is the part of every request that must stay byte-identical for the cache to hit. It is
built once into canonical bytes per segment (tools, then system blocks, the order providers hash
them in), fingerprinted per segment, and cannot be mutated: `replace()` returns a new prefix, and
sessions only move to one through a priced action of the cache guard.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_bytes, fingerprint
from .errors import PrefixError
from .tokenizer import count_tokens
from .tools import Tool, ToolLike, ToolSpec, as_spec, check_tool_name, make_tool


@dataclass(frozen=True)
class PrefixSegment:
    """One hashed part of a prefix: its canonical bytes, fingerprint and token count."""

    name: str
    data: bytes
    fingerprint: str
    tokens: int


class FrozenPrefix:
    """System blocks plus tools, in canonical form. Immutable and hashable."""

    __slots__ = ("_runners", "_segments", "_system", "_tools", "fingerprint")

    _system: tuple[str, ...]
    _tools: tuple[ToolSpec, ...]
    _runners: Mapping[str, Tool]
    _segments: tuple[PrefixSegment, ...]
    fingerprint: str

    def __init__(
        self,
        system: str | Sequence[str] = (),
        tools: Iterable[ToolLike | Callable[..., Any]] = (),
    ) -> None:
        try:
            blocks = (system,) if isinstance(system, str) else tuple(system)
        except TypeError:  # FrozenPrefix(system=5): say so, not "int is not iterable"
            raise PrefixError(
                f"system must be text or a list of text blocks, got {type(system).__name__}",
                where="system",
            ) from None
        for i, block in enumerate(blocks):
            if not isinstance(block, str):
                raise PrefixError(f"system block {i} must be text, got {type(block).__name__}")
            try:
                block.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate: no provider can be sent it
                raise PrefixError(
                    f"system block {i} is not valid Unicode text: a lone surrogate "
                    f"{block[exc.start]!r} at character {exc.start}",
                    where="system",
                ) from None
        specs: dict[str, ToolSpec] = {}
        runners: dict[str, Tool] = {}
        for item in tools:
            if callable(item) and not isinstance(item, (Tool, ToolSpec, Mapping)):
                item = make_tool(item)  # a plain function: as @tool would (pydantic-ai does too)
            spec = as_spec(item)
            # Here, not only in @tool: a dict or ToolSpec with a name the provider refuses would
            # otherwise surface as a 400 on the first request, after the session was set up.
            check_tool_name(spec.name)
            if spec.name in specs:
                raise PrefixError(f"duplicate tool name {spec.name!r}")
            specs[spec.name] = spec
            if isinstance(item, Tool):
                runners[spec.name] = item
        # Tools in name order: registration order must not change the bytes.
        ordered = tuple(specs[name] for name in sorted(specs))
        tool_dicts = []
        for spec in ordered:
            try:
                tool_dicts.append(canonical_bytes(spec.to_dict()))
            except (TypeError, ValueError) as exc:
                raise PrefixError(f"tool {spec.name!r}: schema is not serializable: {exc}") from exc
        tools_data = b"[" + b",".join(tool_dicts) + b"]"
        system_data = canonical_bytes(list(blocks))
        segments = (
            PrefixSegment(
                "tools", tools_data, fingerprint(tools_data), count_tokens(tools_data.decode())
            ),
            PrefixSegment(
                "system", system_data, fingerprint(system_data), sum(map(count_tokens, blocks))
            ),
        )
        object.__setattr__(self, "_system", blocks)
        object.__setattr__(self, "_tools", ordered)
        object.__setattr__(self, "_runners", dict(runners))
        object.__setattr__(self, "_segments", segments)
        object.__setattr__(
            self, "fingerprint", fingerprint(b"".join(s.fingerprint.encode() for s in segments))
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FrozenPrefix is immutable; use replace() to make a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("FrozenPrefix is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrozenPrefix) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return (
            f"FrozenPrefix({len(self._system)} system blocks, {len(self._tools)} tools, "
            f"{self.tokens} tokens, {self.fingerprint[:12]})"
        )

    @property
    def system(self) -> tuple[str, ...]:
        """The system prompt's blocks."""
        return self._system

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """The tools' specs, sorted by name."""
        return self._tools

    @property
    def segments(self) -> tuple[PrefixSegment, ...]:
        """The segments (`system`, `tools`), each with its canonical bytes and fingerprint."""
        return self._segments

    def segment(self, name: str) -> PrefixSegment:
        """The segment called `name` (`system` or `tools`)."""
        for seg in self._segments:
            if seg.name == name:
                return seg
        raise KeyError(name)

    @property
    def tokens(self) -> int:
        """The prefix's size in tokens (prefixlock's tokenizer)."""
        return sum(s.tokens for s in self._segments)

    def runner(self, name: str) -> Tool | None:
        """The Python function behind tool `name`, when the prefix was built from one."""
        return self._runners.get(name)

    def tool_names(self) -> tuple[str, ...]:
        """The tools' names, sorted as they are sent."""
        return tuple(t.name for t in self._tools)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, enough to rebuild an equal prefix (`from_dict`)."""
        return {"system": list(self._system), "tools": [t.to_dict() for t in self._tools]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], runners: Iterable[Tool] = ()) -> FrozenPrefix:
        """Rebuild a prefix from `to_dict()` output, re-attaching Python runners by name."""
        by_name = {r.name: r for r in runners}
        tools: list[ToolLike] = []
        for t in data.get("tools", []):
            spec = as_spec(t)
            runner = by_name.get(spec.name)
            tools.append(dataclasses.replace(runner, spec=spec) if runner else spec)
        return cls(system=list(data.get("system", [])), tools=tools)

    def replace(
        self,
        *,
        system: str | Sequence[str] | None = None,
        tools: Iterable[ToolLike] | None = None,
    ) -> FrozenPrefix:
        """A new prefix with some parts replaced. Sessions move to it only through the guard."""
        new_tools: Iterable[ToolLike] = (
            [self._runners.get(t.name, t) for t in self._tools] if tools is None else tools
        )
        return FrozenPrefix(system=self._system if system is None else system, tools=new_tools)


# The first line of a summary a compaction put at the end of the system prompt: a prefix's
# own system blocks are those before it (providers split the prompt on them, compaction
# replaces the summary).
SUMMARY_HEADER = "Summary of the earlier conversation (compacted):\n\n"


def base_system(prefix: FrozenPrefix) -> tuple[str, ...]:
    """The system blocks without an earlier compaction's summary (placement "system")."""
    system = prefix.system
    return system[:-1] if system and system[-1].startswith(SUMMARY_HEADER) else system
