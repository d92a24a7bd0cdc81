"""Tools: a Python function turned into a tool spec whose schema is the same on every run.

`@tool` reads the function's type hints and docstring (parsed by `docstring-parser`: Google,
NumPy, Sphinx and Epydoc styles), builds a pydantic model of its arguments
and takes that model's JSON schema, so the schema depends on the code only. Invoking a tool
validates the arguments with the same model; sync and async functions both work.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, get_origin, get_type_hints, overload

import pydantic

from .canonical import canonical_json
from .context import RunContext
from .errors import PrefixError

# The tool-name rule every provider we send to accepts: Anthropic documents
# ^[a-zA-Z0-9_-]{1,128}$, OpenAI function names (and the OpenAI-compatible servers) allow the same
# characters but at most 64. A prefix may move between providers through a model switch, so the
# stricter of the two is the one a name must pass. FrozenPrefix checks it for every tool, however
# it was given; `@tool` checks it early so the decorator line is where the error points.
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_NAME_RULE = "letters, digits, '_' and '-' only, 1 to 64 characters (Anthropic and OpenAI)"


def check_tool_name(name: object) -> str:
    """Return `name` when a provider would accept it as a tool name, else raise PrefixError."""
    # fullmatch: `$` alone would let a trailing newline in.
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
        raise PrefixError(f"tool name {shown} must match {TOOL_NAME.pattern}: {TOOL_NAME_RULE}")
    return name


def _frozen(value: Any) -> Any:
    """A read-only deep copy: a spec must not change after it entered a prefix."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """A plain, mutable deep copy (dicts and lists) for SDKs and JSON."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class ToolSpec:
    """What a provider sees of a tool: name, description, JSON schema of its input.

    The schema is copied and frozen: changing the dict it was built from, or trying to change
    it in place, cannot alter a prefix that holds the spec."""

    name: str
    description: str
    input_schema: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_schema", _frozen(self.input_schema))

    def __hash__(self) -> int:
        # The generated hash would hash the schema, a mappingproxy (unhashable), so tools could
        # not go in a set. Equal specs have equal names: the name is a consistent hash.
        return hash(self.name)

    def to_dict(self) -> dict[str, Any]:
        """Plain data: name, description, input_schema."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": _plain(self.input_schema),
        }


@dataclass(frozen=True)
class Tool:
    """A callable tool: its spec plus the function that runs it."""

    spec: ToolSpec
    fn: Callable[..., Any] = field(compare=False, repr=False)
    args_model: type[pydantic.BaseModel] | None = field(default=None, compare=False, repr=False)
    # The first parameter, when it is annotated RunContext[...]: filled by the session, never
    # in the schema (prefixlock.context).
    context_param: str | None = field(default=None, compare=False, repr=False)
    # Every call waits for the caller's approval (prefixlock.approvals). Not part of the spec:
    # approving changes no byte the provider caches.
    requires_approval: bool = field(default=False, compare=False)

    @property
    def name(self) -> str:
        """The tool's name, as the model calls it."""
        return self.spec.name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function itself, as if it were not a tool."""
        return self.fn(*args, **kwargs)

    async def invoke(
        self, arguments: Mapping[str, Any], context: RunContext[Any] | None = None
    ) -> str:
        """Validate `arguments`, run the function, and return its result as text. A tool
        that takes a RunContext gets `context` as its first argument."""
        kwargs: dict[str, Any] = dict(arguments)
        if self.args_model is not None:
            parsed = self.args_model.model_validate(kwargs)
            kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        # Positional-only parameters (`def f(path, /)`) cannot be passed by name.
        args = [kwargs.pop(n) for n in _positional_only(self.fn) if n in kwargs]
        if self.context_param is not None:
            if context is None:
                raise TypeError(
                    f"tool {self.name!r} takes a RunContext: call it through a session "
                    "(send/run with deps=...)"
                )
            args.insert(0, context)
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn(*args, **kwargs)
        else:
            result = await asyncio.to_thread(self.fn, *args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
        if isinstance(result, str):
            return result
        try:
            return canonical_json(result)
        except (TypeError, ValueError):  # a Path, a dataclass...: the tool did succeed
            return str(result)


def _positional_only(fn: Callable[..., Any]) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # no signature to read: call by name, as before
        return []
    return [p.name for p in params if p.kind is p.POSITIONAL_ONLY]


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    """A docstring's description and each parameter's text, in any style `docstring-parser`
    reads (Google `Args:`, NumPy `Parameters` with dashes, Sphinx `:param x:`, Epydoc
    `@param x:`). Sections other than the parameters (returns, raises) are not described to
    the model; a parameter's wrapped lines become one line."""
    import docstring_parser

    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:  # not a docstring it can read: all of it describes
        return inspect.cleandoc(doc).strip(), {}
    args = {p.arg_name: " ".join(p.description.split()) for p in parsed.params if p.description}
    return (parsed.description or "").strip(), args


def strip_titles(schema: Any) -> Any:
    """Drop pydantic's generated `title` keys: they repeat the names and only cost tokens."""
    if isinstance(schema, dict):
        return {k: strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [strip_titles(v) for v in schema]
    return schema


def make_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> Tool:
    """Build a `Tool` from a function (what `@tool` does)."""
    tool_name = name or getattr(fn, "__name__", None)
    if tool_name is None:  # a functools.partial, a callable object
        raise PrefixError(
            f"{fn!r} is not a function: make the tool from a def (or async def) that calls it"
        )
    check_tool_name(tool_name)
    doc_desc, arg_docs = _docstring_parts(fn.__doc__ or "")
    try:
        hints = get_type_hints(fn)
    except Exception as exc:  # unresolvable annotations are the user's to fix
        raise PrefixError(f"tool {tool_name!r}: cannot read type hints: {exc}") from exc
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for i, (pname, param) in enumerate(inspect.signature(fn).parameters.items()):
        if _is_context(hints.get(pname)):
            if i != 0:
                raise PrefixError(
                    f"tool {tool_name!r}: the RunContext parameter {pname!r} must come first",
                    where=f"{tool_name}.{pname}",
                )
            context_param = pname  # filled by the session, not the model: not in the schema
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise PrefixError(f"tool {tool_name!r}: *args/**kwargs cannot be described")
        if pname not in hints:
            # Without a hint the schema would say nothing of the argument ("any JSON"), the
            # model would guess its type and validation would let anything through.
            raise PrefixError(
                f"tool {tool_name!r}: parameter {pname!r} of "
                f"{getattr(fn, '__qualname__', tool_name)}() has no type hint: annotate it "
                f"(e.g. `{pname}: str`) so its JSON schema can be derived",
                where=f"{tool_name}.{pname}",
            )
        annotation = hints[pname]
        default = ... if param.default is param.empty else param.default
        fields[pname] = (
            annotation,
            pydantic.Field(default=default, description=arg_docs.get(pname)),
        )
    try:
        model = pydantic.create_model(f"{tool_name}_args", **fields)
        schema = strip_titles(model.model_json_schema())
        canonical_json(schema)
    except Exception as exc:
        # pydantic explains over several lines; its first says what failed (one-line errors).
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PrefixError(f"tool {tool_name!r}: schema is not serializable: {first}") from exc
    spec = ToolSpec(tool_name, description or doc_desc, schema)
    return Tool(spec, fn, model, context_param, requires_approval)


def _is_context(hint: Any) -> bool:
    return hint is RunContext or get_origin(hint) is RunContext


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, requires_approval: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: turn a function into a `Tool` (schema from type hints and docstring).

    `@tool` or `@tool(name=..., description=..., requires_approval=True)`. The description
    is the docstring's text and each parameter's description its entry in the docstring's
    parameter section (Google, NumPy, Sphinx or Epydoc style). `requires_approval`: every
    call waits for the caller (`ApprovalRequired`, then `approve`/`deny` and `resume()`)."""
    if fn is not None:
        return make_tool(fn)

    def wrap(f: Callable[..., Any]) -> Tool:
        return make_tool(f, name=name, description=description, requires_approval=requires_approval)

    return wrap


ToolLike = Tool | ToolSpec | Mapping[str, Any]
AsyncToolFn = Callable[..., Awaitable[Any]]


def as_spec(item: ToolLike) -> ToolSpec:
    """Accept a Tool, a ToolSpec or a plain `{name, description, input_schema}` mapping."""
    if isinstance(item, Tool):
        return item.spec
    if isinstance(item, ToolSpec):
        return item
    try:
        name = item["name"]
        if not isinstance(name, str):  # str(None) would pass as a tool called "None"
            check_tool_name(name)
        return ToolSpec(
            name,
            str(item.get("description", "")),
            dict(item.get("input_schema") or item.get("parameters") or {"type": "object"}),
        )
    except (KeyError, TypeError) as exc:
        raise PrefixError(f"tool definition {item!r} lacks a name") from exc
