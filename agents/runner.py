"""SubagentDelegator: runs a task in an isolated subagent and returns only its summary.

A subagent gets its own frozen prefix (the definition's prompt plus the rules below, and its
tools sorted by name, so every subagent of one definition and model sends the same prefix bytes
and siblings share one cache entry), its own model, its own session and cache, and its own turn
and dollar limits. The parent's prefix is never touched: the parent only ever receives the call
and the summary. Whatever goes wrong in the subagent (a provider fault, a limit, a tool that is
missing, the nesting depth) comes back as an error summary, never as an exception.

The parent's API key is used to authenticate the subagent's requests (a header) and nowhere
else: it is removed from the task text and from the summary, and the subagent has no store of
its own, so it cannot reach a prompt, a trace or a log.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.delegation import (
    DelegationResult,
    ParentSession,
    current_session,
    delegate_for_tool,
    subagent_section,
)
from prefixlock.errors import UserError
from prefixlock.events import Event, SubagentEvent, TextDelta, TurnComplete, UsageReport
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, cache_key_for
from prefixlock.redact import redact
from prefixlock.tokenizer import count_tokens, pieces
from prefixlock.tools import Tool, ToolSpec, make_tool

from .definitions import AgentDefinition
from .registry import AgentRegistry

if TYPE_CHECKING:
    from prefixlock.session import Session
    from prefixlock.state import SessionAgent

log: logging.Logger = logging.getLogger("prefixlock.agents")

DELEGATE_TOOL = "delegate"
DEFAULT_MAX_DEPTH = 2

# Appended to every subagent's system prompt; fixed text, so the prefix stays byte-stable.
SUBAGENT_RULES = (
    "You are a subagent. Another agent gave you one task and will see nothing of your work but "
    "your final answer: no tool calls, no tool results. Do the task with your tools, then end "
    "with a final answer that stands on its own. Keep it under {cap} tokens."
)

EventSink = Callable[[Event], None]
REDACTED = "[redacted]"  # where the parent's API key stood in a task, a summary or an error


@dataclass(frozen=True)
class _SiblingInfo(SessionInfo):
    """A subagent session whose OpenAI `prompt_cache_key` is shared by every subagent on the
    same prefix and model, so siblings are routed to the machine that holds their prefix."""

    shared_key: str = ""

    @property
    def cache_key(self) -> str:
        return self.shared_key


def cap_summary(text: str, max_tokens: int) -> tuple[str, int]:
    """`text` cut to `max_tokens` tokens (with a marker when cut), and its token count."""
    n = count_tokens(text)
    if n <= max_tokens:
        return text, n
    marker = f"\n[summary cut at {max_tokens} tokens]"
    keep = max(max_tokens - count_tokens(marker), 1)
    cut = "".join(pieces(text)[:keep]).rstrip() + marker
    return cut, count_tokens(cut)


class SubagentAgent(Protocol):
    """What the delegator needs of the agent it makes for a subagent (`prefixlock.Agent` is
    one): a fresh session."""

    def session(self, session_id: str | None = None) -> Session:
        """A session on the agent's prefix: a fresh one, or the stored `session_id`."""
        ...


# Builds a subagent's agent: called as `factory(prefix, model=, prices=, settings=, clock=,
# api_key=, base_url=, delegator=)`, the keywords `prefixlock.Agent` takes.
AgentFactory = Callable[..., SubagentAgent]


def _parent_agent(parent: ParentSession) -> SessionAgent | None:
    """The agent behind the parent session, when it is a `prefixlock.Session` (a parent of
    another make has none: the subagent then gets defaults for clock, settings and prices,
    and its key from the environment)."""
    from prefixlock.session import Session

    return parent.agent if isinstance(parent, Session) else None


class SubagentDelegator:
    """The `agents` implementation of prefixlock.delegation.Delegator."""

    def __init__(
        self,
        registry: AgentRegistry | None = None,
        *,
        root: str | Path | None = None,
        tools: Iterable[Tool] = (),
        max_depth: int = DEFAULT_MAX_DEPTH,
        prices: PriceTable | None = None,
        agent_factory: AgentFactory | None = None,
    ) -> None:
        """`registry`: agent definitions (default: built-in + `root`'s project folders).
        `root`: a workspace whose read-only tools (read_file, list_dir, glob, grep) subagents may
        use. `tools`: more tools subagents may name. `agent_factory`: builds the subagent's
        `prefixlock.agent.Agent` (default: that class)."""
        self.registry: AgentRegistry = (
            registry if registry is not None else AgentRegistry.discover(root)
        )
        self.root: Path | None = Path(root) if root is not None else None
        self._pool: dict[str, Tool] = {}
        if self.root is not None:
            from prefixlock.coding.workspace import Workspace

            for t in Workspace(self.root).read_only_tools():
                self._pool[t.name] = t
        for t in tools:
            self._pool[t.name] = t
        if max_depth < 1:
            raise UserError("max_depth must be at least 1", where="max_depth")
        self.max_depth = max_depth
        self.prices = prices
        self._agent_factory = agent_factory
        self._depth: dict[int, int] = {}  # id(session) -> depth, while a subagent runs
        # (prefix fingerprint, model) -> set once the first subagent on it has had a response
        self._warming: dict[tuple[str, str], asyncio.Event] = {}
        self._reported: set[tuple[str, str]] = set()  # (definition source, missing tool)
        self.results: list[DelegationResult] = []

    def default_agent(self) -> str:
        """`explorer` when defined, else the first agent by name."""
        names = self.registry.names()
        return "explorer" if "explorer" in names or not names else names[0]

    # -- the delegate tool --------------------------------------------------------------------

    def tool(self) -> Tool:
        """The `delegate` tool for a parent's prefix. Its schema lists the agents, sorted, so
        it is the same bytes on every run for the same set of definitions."""
        names = self.registry.names()
        default = self.default_agent()
        lines = [f"- {d.name}: {d.description}" for d in self.registry]
        description = (
            "Hand a self-contained task to an isolated subagent that works with its own context "
            "and tools and returns only a short summary. Use it for searches and reading that "
            "would otherwise fill this conversation. Agents:\n" + "\n".join(lines)
        )
        delegator = self

        async def delegate(task: str, agent: str = default) -> str:
            parent = current_session.get()
            if parent is None:
                return "[delegate failed: no calling session]"
            # Streams the subagent's events into the parent and charges it, as the handler does.
            result = await delegate_for_tool(parent, delegator, task, agent=agent)
            return result.summary

        t = make_tool(delegate, name=DELEGATE_TOOL, description=description)
        schema = dict(t.spec.input_schema)
        props = dict(schema.get("properties", {}))
        props["task"] = {"type": "string", "description": "the task, self-contained"}
        props["agent"] = {
            "type": "string",
            "enum": names,
            "default": default,
            "description": "which subagent runs it",
        }
        schema["properties"] = props
        return Tool(
            ToolSpec(DELEGATE_TOOL, description, schema), t.fn, t.args_model, t.context_param
        )

    # -- building a subagent -------------------------------------------------------------------

    def depth_of(self, session: object) -> int:
        """0 for a top-level session, n for a subagent n levels down."""
        return self._depth.get(id(session), 0)

    def resolve_tools(
        self, definition: AgentDefinition, parent_prefix: FrozenPrefix | None, depth: int
    ) -> tuple[list[Tool | ToolSpec], list[str]]:
        """The subagent's tools (a subset of the parent's or from the pool) and what is missing.

        A name found in neither is left out with a note (a Claude Code file may name tools this
        harness does not have). `delegate` is offered only to definitions that name it.
        """
        if definition.tools is not None:
            wanted = list(definition.tools)
        else:
            wanted = list(parent_prefix.tool_names()) if parent_prefix is not None else []
            wanted += [n for n in sorted(self._pool) if n not in wanted]
        found: list[Tool | ToolSpec] = []
        missing: list[str] = []
        for name in dict.fromkeys(wanted):
            if name == DELEGATE_TOOL:
                # Offered only when the definition names it, and offered at every depth (the
                # limit is enforced per call), so one definition has one prefix at any depth.
                if definition.tools is not None:
                    found.append(self.tool())
                continue
            runner = parent_prefix.runner(name) if parent_prefix is not None else None
            tool = runner or self._pool.get(name)
            if tool is None:
                missing.append(name)
            else:
                found.append(tool)
        return found, missing

    def prefix_for(
        self, definition: AgentDefinition, parent_prefix: FrozenPrefix | None = None, depth: int = 1
    ) -> FrozenPrefix:
        """The subagent's frozen prefix: its prompt, the subagent rules, its tools."""
        tools, missing = self.resolve_tools(definition, parent_prefix, depth)
        for name in missing:
            if (definition.source, name) not in self._reported:
                self._reported.add((definition.source, name))
                log.warning(
                    "%s: tool %r is not available here; the subagent runs without it",
                    definition.source,
                    name,
                )
        rules = SUBAGENT_RULES.format(cap=definition.summary_tokens)
        return FrozenPrefix(system=[definition.system, rules], tools=tools)

    def prefix_of(self, agent: str, parent_prefix: FrozenPrefix | None = None) -> FrozenPrefix:
        """The prefix a subagent of `agent` gets under a parent with `parent_prefix`
        (`prefixlock.delegation.subagent_prefix`): what its siblings share in the cache."""
        return self.prefix_for(self.registry.get(agent), parent_prefix)

    def _make_agent(
        self, parent: ParentSession, prefix: FrozenPrefix, model: str, definition: AgentDefinition
    ) -> SubagentAgent:
        from prefixlock.settings import Settings

        factory = self._agent_factory
        if factory is None:
            from prefixlock.agent import Agent

            factory = Agent
        parent_model = parent.model
        owner = _parent_agent(parent)
        prices = self.prices or (owner.prices if owner else None) or PriceTable.default()
        same_provider = _provider(prices, model) == _provider(prices, parent_model)
        kwargs: dict[str, Any] = {"model": model, "prices": prices}
        if owner is not None:
            kwargs["clock"] = owner.clock
        if same_provider and owner is not None:
            # The key authenticates the requests (a header); it never enters a prompt.
            if owner.api_key is not None:
                kwargs["api_key"] = owner.api_key
            if owner.base_url is not None:
                kwargs["base_url"] = owner.base_url
        base = owner.settings if owner is not None else Settings()
        kwargs["settings"] = base.with_(
            max_turns=definition.max_turns, max_dollars=definition.max_dollars
        )
        if "delegator" in _factory_params(factory):
            kwargs["delegator"] = self
        return factory(prefix, **kwargs)

    # -- running ------------------------------------------------------------------------------

    async def delegate(
        self,
        parent: ParentSession,
        task: str,
        *,
        agent: str | None = None,
        model: str | None = None,
        on_event: EventSink | None = None,
        first_response: asyncio.Event | None = None,
        coordinate: bool = True,
    ) -> DelegationResult:
        """Run `task` in a subagent; never raises for the subagent's own failures.

        `on_event` receives SubagentStart at once, a SubagentEvent for each event of the
        subagent's own stream as it happens, and SubagentFinish at the end (the tool path passes
        the parent session's `emit`, so all of it reaches the parent's stream live).
        `first_response` is set once the subagent's first request has returned, i.e. once its
        prefix is readable in the cache.
        `coordinate=False` skips waiting for a sibling that is warming the same prefix.
        """
        depth = self.depth_of(parent) + 1
        # Random, so unique within the parent session even across delegator instances.
        run_id = uuid.uuid4().hex[:12]
        if agent is None:
            agent = self.default_agent()
        owner = _parent_agent(parent)
        secrets = [owner.api_key] if owner is not None and owner.api_key else []
        task = redact(task, secrets, REDACTED)
        parent_model = parent.model
        try:
            definition = self.registry.get(agent)
        except UserError as exc:
            return self._failed(
                agent,
                model or parent_model,
                task,
                depth,
                "unknown agent",
                str(exc),
                on_event,
                first_response,
                run_id,
            )
        chosen = model or definition.model or parent_model
        if ":" not in chosen:  # an alias (haiku) reads as the model id it stands for
            table = self.prices or (owner.prices if owner else None) or PriceTable.default()
            chosen = table.resolve(chosen)
        if depth > self.max_depth:
            return self._failed(
                definition.name,
                chosen,
                task,
                depth,
                "depth",
                f"nesting depth limit {self.max_depth} reached; do the task yourself",
                on_event,
                first_response,
                run_id,
            )
        start = DelegationResult(definition.name, chosen, task, "", depth=depth, run_id=run_id)
        if on_event is not None:
            on_event(start.start_event())
        usage = Usage()
        cost: Decimal | None = Decimal(0)
        requests = 0
        text_parts: list[str] = []
        final = ""
        limit: str | None = None
        error: str | None = None
        session_id = ""
        warming: asyncio.Event | None = None
        key = ("", "")
        try:
            prefix = self.prefix_for(definition, parent.prefix, depth)
            key = (prefix.fingerprint, chosen)
            if coordinate:
                # Warm-then-fan-out for every path (fan_out, the model's parallel `delegate`
                # calls, user code gathering s.delegate): while a sibling on the same prefix and
                # model has not had its first response, its cache write is not readable yet, so
                # wait for it rather than pay the same write again.
                other = self._warming.get(key)
                if other is not None:
                    await other.wait()
                else:
                    warming = self._warming[key] = asyncio.Event()
            sub_agent = self._make_agent(parent, prefix, chosen, definition)
            async with sub_agent.session() as sub:
                session_id = str(getattr(sub, "id", ""))
                self._depth[id(sub)] = depth
                sub.state.info = _SiblingInfo(
                    session_id, cache_key_for(f"subagents/{prefix.fingerprint}/{chosen}")
                )
                try:
                    async for ev in sub.send(task):
                        if on_event is not None:
                            # Live, tagged with who yielded it; deeper subagents' events are
                            # tagged already and pass through as they are.
                            on_event(
                                ev
                                if isinstance(ev, SubagentEvent)
                                else SubagentEvent(definition.name, depth, ev, run_id)
                            )
                        if isinstance(ev, UsageReport):
                            usage = usage + ev.usage
                            requests += 1
                            cost = None if cost is None or ev.cost is None else cost + ev.cost
                            self._release(key, warming, first_response)
                        elif isinstance(ev, TextDelta):
                            text_parts.append(ev.text)
                        elif isinstance(ev, TurnComplete):
                            final = ev.text
                            limit = ev.limit_hit
                finally:
                    self._depth.pop(id(sub), None)
                # What this subagent's own subagents cost is charged up the chain too (their
                # tokens stay theirs: `usage` and the hit rate are this subagent's own).
                nested = subagent_section(sub)
                if len(nested):
                    below = nested.cost
                    cost = None if cost is None or below is None else cost + below
        except Exception as exc:  # a subagent must never crash its parent: report, don't raise
            error = f"{type(exc).__name__}: {redact(str(exc), secrets, REDACTED)}"
        finally:
            self._release(key, warming, first_response)
        body = redact(final or "".join(text_parts), secrets, REDACTED).strip()
        if error is not None:
            summary = f"[subagent {definition.name} failed: {error}]"
            if body:
                summary += f" Partial answer: {body}"
        elif limit is not None:
            what = {
                "turns": f"turn limit {definition.max_turns}",
                "dollars": f"dollar limit ${definition.max_dollars}",
            }.get(limit, limit)
            summary = f"[subagent {definition.name} stopped at its {what}] {body}".rstrip()
            error = limit
        else:
            summary = body or f"[subagent {definition.name} returned no answer]"
        summary, summary_tokens = cap_summary(summary, definition.summary_tokens)
        result = DelegationResult(
            name=definition.name,
            model=chosen,
            task=task,
            summary=summary,
            usage=usage,
            cost=cost,
            requests=requests,
            turns=requests,
            summary_tokens=summary_tokens,
            error=error,
            depth=depth,
            session_id=session_id,
            run_id=run_id,
        )
        result = _with_events(result)
        self.results.append(result)
        if on_event is not None:
            on_event(result.events[-1])
        return result

    def _release(
        self, key: tuple[str, str], warming: asyncio.Event | None, first: asyncio.Event | None
    ) -> None:
        """The first response arrived (or the run ended): siblings may read the prefix now."""
        if warming is not None and not warming.is_set():
            warming.set()
            if self._warming.get(key) is warming:
                del self._warming[key]
        if first is not None:
            first.set()

    def _failed(
        self,
        name: str,
        model: str,
        task: str,
        depth: int,
        error: str,
        message: str,
        on_event: EventSink | None,
        first: asyncio.Event | None,
        run_id: str = "",
    ) -> DelegationResult:
        summary = f"[subagent {name} not run: {message}]"
        result = _with_events(
            DelegationResult(
                name,
                model,
                task,
                summary,
                cost=Decimal(0),
                error=error,
                depth=depth,
                summary_tokens=count_tokens(summary),
                run_id=run_id,
            )
        )
        if first is not None:
            first.set()
        if on_event is not None:
            for ev in result.events:
                on_event(ev)
        self.results.append(result)
        return result

    async def fan_out(
        self,
        parent: ParentSession,
        tasks: Sequence[str],
        *,
        agent: str | None = None,
        model: str | None = None,
        warm_first: bool = True,
        on_event: EventSink | None = None,
    ) -> list[DelegationResult]:
        """Run several tasks in parallel subagents of one definition (one shared prefix).

        Warm-then-fan-out: the first subagent runs until its first request has returned (its
        cache write is readable from then on); only then do the others start, so they read the
        shared prefix instead of each paying to write it. `warm_first=False` starts them all at
        once (every one pays the write on a cold prefix).
        """
        if isinstance(tasks, str):  # one task, not one subagent per letter
            tasks = [tasks]
        # Every delegate() coordinates on its prefix: the first to start warms it, the others
        # wait for its first response (see delegate). Without warm_first, nobody waits.
        results = await asyncio.gather(
            *(
                self.delegate(
                    parent, t, agent=agent, model=model, on_event=on_event, coordinate=warm_first
                )
                for t in tasks
            )
        )
        return list(results)


def _with_events(result: DelegationResult) -> DelegationResult:
    from dataclasses import replace

    return replace(result, events=(result.start_event(), result.finish_event()))


def _provider(prices: PriceTable, model: str) -> str:
    head, sep, _ = model.partition(":")
    if sep and head in ("anthropic", "openai", "openai-responses", "openai-compat"):
        return "openai" if head.startswith("openai") else head
    price = prices.lookup(model)
    if price is not None:
        return price.provider
    return "anthropic" if model.startswith("claude") else "openai"


def _factory_params(factory: Callable[..., Any]) -> Mapping[str, Any]:
    import inspect

    try:
        return inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}


__all__ = [
    "DELEGATE_TOOL",
    "SUBAGENT_RULES",
    "SubagentDelegator",
    "cap_summary",
    "default_delegator",
]


def default_delegator() -> SubagentDelegator:
    """The delegator the `prefixlock.delegators` entry point names: built-in and project agents
    of the current directory, whose read-only workspace tools subagents may use."""
    return SubagentDelegator(root=Path.cwd())
