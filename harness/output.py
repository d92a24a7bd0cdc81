"""Structured output: a turn that ends with a validated pydantic object instead of free text.

The model gives its final answer by calling an output tool, whose input schema is the output
type's JSON schema. That tool is an ordinary tool of the frozen prefix (`output_tool(Model)` in
`FrozenPrefix(tools=[...])`), so its schema is part of the cached bytes from the first request
on: asking for structured output on one turn and not on the next changes nothing the provider
hashes, and nothing is re-billed. (A schema added per request, as a `response_format`, would sit
outside the breakpoints the guard plans, and a changed one would break the cache.)

`send(text, output_type=Model)` / `run(text, output_type=Model)`: when the model calls the tool,
its input is validated with `Model.model_validate`; a valid one ends the turn (a `FinalOutput`
event, `TurnComplete.stop_reason == "output"`); an invalid one goes back to the model as an
error tool result with pydantic's errors, and the loop goes on. A reply in plain text gets one
short reminder to call the tool. After `retries` failed attempts `OutputError` is raised.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pydantic

from .errors import PrefixlockError, UserError
from .tools import Tool, ToolSpec, check_tool_name, strip_titles

OutputT = TypeVar("OutputT", bound=pydantic.BaseModel)

DEFAULT_RETRIES = 2
ACCEPTED = "Final answer received."


class OutputError(PrefixlockError):
    """The model did not produce a valid output object within the retries allowed."""


def output_tool_name(output_type: type[pydantic.BaseModel]) -> str:
    """`final_<ClassName>`: one name per output type, stable across runs."""
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", f"final_{output_type.__name__}")[:64]
    return check_tool_name(name)


def output_tool(
    output_type: type[pydantic.BaseModel], *, name: str | None = None, description: str = ""
) -> Tool:
    """The tool the model calls to give its final answer as `output_type`. Put it in the frozen
    prefix (`FrozenPrefix(tools=[..., output_tool(Invoice)])`): the schema is then cached with
    the rest of the prefix and never changes between turns.

    Its name is `final_<ClassName>` (`final_Invoice`), the name `run(text, Invoice)` and
    `send(text, output_type=Invoice)` look for (`name=` picks another, for a tool called
    outside them); its
    description says to answer by calling it, with the model's docstring (`description=`
    replaces it); its input schema is the model's JSON schema without pydantic's titles."""
    if not (isinstance(output_type, type) and issubclass(output_type, pydantic.BaseModel)):
        raise UserError(
            f"an output type must be a pydantic BaseModel subclass, got {output_type!r}",
            where="output_type",
        )
    tool_name = check_tool_name(name) if name else output_tool_name(output_type)
    doc = (output_type.__doc__ or "").strip()
    text = description or (
        f"Give your final answer as {output_type.__name__} by calling this tool"
        + (f": {doc}" if doc and not doc.startswith("!!!") else ".")
    )
    schema = strip_titles(output_type.model_json_schema())

    def accept(**fields: Any) -> str:  # run outside a structured turn: still a valid answer
        output_type.model_validate(fields)
        return ACCEPTED

    return Tool(ToolSpec(tool_name, text, schema), accept, None)


@dataclass
class OutputRun(Generic[OutputT]):
    """One turn's structured output: which tool carries it, the attempts so far, the result."""

    output_type: type[OutputT]
    tool_name: str
    retries: int = DEFAULT_RETRIES
    failures: int = 0
    value: OutputT | None = None
    last_error: str = field(default="", repr=False)

    @classmethod
    def start(
        cls, output_type: type[OutputT], tool_names: tuple[str, ...], retries: int
    ) -> OutputRun[OutputT]:
        """Check that the prefix holds the output tool (its schema must be cached with the
        prefix, not added now)."""
        name = output_tool_name(output_type)
        if name not in tool_names:
            raise UserError(
                f"output type {output_type.__name__} has no tool in the frozen prefix: add "
                f"output_tool({output_type.__name__}) to FrozenPrefix(tools=[...]) (its schema "
                "is cached with the prefix, so structured output never breaks the cache)",
                where="output_type",
            )
        if retries < 0:
            raise UserError("output_retries must be 0 or more", where="output_retries")
        return cls(output_type, name, retries)

    @property
    def done(self) -> bool:
        return self.value is not None

    def accept(self, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        """The tool result for a call of the output tool: accepted, or pydantic's errors for
        the model to fix (an is_error result)."""
        try:
            self.value = self.output_type.model_validate(dict(arguments))
        except pydantic.ValidationError as exc:
            self._failed(_errors(exc))
            return f"Invalid {self.output_type.__name__}, fix and call again:\n{_errors(exc)}", True
        return ACCEPTED, False

    def reminder(self, text: str = "") -> str:
        """What the model is told when it answered in `text` instead of calling the tool (the
        error, once the retries are spent, quotes the reply: the cause is there)."""
        said = " ".join(text.split())
        quoted = repr(said[:160] + ("..." if len(said) > 160 else "")) if said else "nothing"
        self._failed(f"the model answered in text without calling {self.tool_name}: {quoted}")
        return f"Give the final answer by calling the tool {self.tool_name}."

    def _failed(self, error: str) -> None:
        self.failures += 1
        self.last_error = error
        if self.failures > self.retries:
            raise OutputError(
                f"no valid {self.output_type.__name__} after {self.failures} attempts "
                f"(output_retries={self.retries}): {error.splitlines()[0] if error else ''}"
            )


def _errors(exc: pydantic.ValidationError) -> str:
    """One line per error: where, and what is wrong (no pydantic URL)."""
    lines = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        lines.append(f"- {where}: {err['msg']}")
    return "\n".join(lines)
