"""The emulator's scripted model: deterministic replies and tool calls from a script.

A script is a list of rules. A rule applies to a user turn (by its number, 1-based, counting user
messages that carry text) or to the latest user text (`match`, a case-insensitive regular
expression), and holds the steps the model takes for that turn: each step is one reply, with an
optional tool call. The step number is how many assistant replies follow the latest user text, so
an agent loop (tool call -> tool result -> next request) walks through the steps, and the reply
depends on the request body only: retries, parallel clients and restarts all get the same answer.

`BUILTIN` is a realistic coding session of 32 user turns (explore, read files, edit, run tests,
fix, re-run, review, document) used by the demo and by anyone who does not bring a script; its
prompts and steps are data (data/session.yaml), read on first use.
A script with `explore: true` answers the turns no rule covers by exploring with whatever tools
the request offers (`prefixlock.emulator.explore`); `EXPLORER` is such a script with no rules, used
by `prefixlock run` on the emulator.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..tokenizer import count_tokens, pieces
from ._data import read_yaml

if TYPE_CHECKING:
    from os import PathLike


class Call(BaseModel):
    """A further tool call in the same reply (parallel tool use)."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    tool: str
    input: dict[str, Any] = Field(default_factory=dict)


class Step(BaseModel):
    """One model reply: text, and optionally a tool call (`tool`, `input`) and further calls
    made in the same reply (`parallel`), as a model that uses tools in parallel does."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    text: str = ""
    tool: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    parallel: list[Call] = Field(default_factory=list)


class Rule(BaseModel):
    """Steps for a user turn number, or for user text matching `match`."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    turn: int | None = Field(default=None, ge=1)
    match: str | None = None
    steps: list[Step] = Field(min_length=1)

    @pydantic.field_validator("match")
    @classmethod
    def _valid_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
        return value


# What a client sends to compact a conversation: prefixlock's instruction ("Summarize this
# conversation so far"), LangChain's SummarizationMiddleware ("Messages to summarize:" over the
# "conversation history"), Claude Code's ("a detailed summary of the conversation so far").
SUMMARY_REQUEST = (
    r"summari[sz]e (this|the) conversation|conversation history|messages to summari[sz]e"
    r"|summary of the conversation"
)
# The sections a coding agent's compaction summary has (task, decisions, files, state, next).
_SUMMARY_LINES = (
    "## Task\nWhat the user asked for, in their words, and the goal behind it.",
    "## Decisions\nThe choices made so far and why; the options turned down and why.",
    "## Files\nEvery file read or edited, with what changed in each.",
    "## State\nWhat was run last and what it showed; what the user has reviewed.",
    "## Next\nContinue with the user's next request from this summary; re-read a file before "
    "editing it, since its exact text is not kept here.",
)


class Summary(BaseModel):
    """How the model answers a request to summarize the conversation (a client compacting): a
    summary of `tokens` output tokens, the same text whoever asks, as a real model writes one
    of about that length instead of a one-line default."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    match: str = SUMMARY_REQUEST  # on the latest user text, case-insensitive
    tokens: int = Field(ge=1)

    @pydantic.field_validator("match")
    @classmethod
    def _valid_regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return value

    def asks(self, text: str) -> bool:
        return re.search(self.match, text, re.I) is not None

    def text(self) -> str:
        return summary_text(self.tokens)


@functools.cache
def summary_text(tokens: int) -> str:
    """A deterministic summary of `tokens` tokens (by prefixlock.tokenizer): the sections of a
    coding session's summary, then numbered notes until the length is reached."""
    parts = list(_SUMMARY_LINES)
    n = 1
    while count_tokens("\n\n".join(parts)) < tokens:
        parts.append(f"- note {n}: a step of the earlier work, kept so it is not repeated.")
        n += 1
    return "".join(pieces("\n\n".join(parts))[:tokens])


class Script(BaseModel):
    """A whole script; `prompts` are the user messages of the session it was written for.

    As a file (`prefixlock serve --script FILE`, YAML or JSON, checked field by field)::

        default: "Done."                  # the reply to a turn no rule covers
        summary: {tokens: 2500}           # a request to summarize the conversation (a client
                                          # compacting) gets a summary of that many tokens
        rules:
          - match: "deploy"               # a regular expression on the user's latest text
            steps:                        # (case-insensitive); match rules are tried first
              - text: "Not on a Friday."
          - turn: 2                       # the 2nd user message (1-based)
            steps:                        # one step per request of the turn, in order; a
              - text: "Running them."     # step with `tool` replies with that tool call
                tool: run_tests           # (when the request offers the tool)
                input: {target: tests}
              - text: "All green."
          - match: "read both"
            steps:
              - text: "Reading both."
                tool: read_file
                input: {path: a.py}
                parallel:                 # more tool calls in the same reply
                  - {tool: read_file, input: {path: b.py}}
              - text: "Both read."
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    default: str = "Understood. Nothing else to do here."
    # None: a summary request is a turn like any other (a rule, or `default`).
    summary: Summary | None = None
    # A turn no rule covers is explored with whatever tools the request offers
    # (prefixlock.emulator.explore) instead of getting `default`.
    explore: bool = False

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Script:
        """Read a YAML or JSON script; a mistake names the file and the field."""
        from ._files import load_script  # reading files is kept out of this module

        return load_script(path)


@dataclass(frozen=True)
class Conversation:
    """What the model needs from a request, whatever the wire format (`Turns` builds one).

    `user_turn`, `user_text`, `step` and `results` read every text sent beside tool results as
    part of the turn those results belong to; `history` keeps each such text (an `aside`) so
    that the scripted model can read one as a new turn when the turn it follows had nothing
    left to do (`ScriptedModel.resolve`)."""

    user_turn: int  # number of user messages with text (1-based turn of the latest)
    user_text: str  # text of the latest user message with text
    step: int  # assistant replies since that message
    tools: tuple[str, ...]  # tool names the request offers
    # Tool results since the latest user text, in order (what the tools returned to the model).
    results: tuple[str, ...] = ()
    # Input schema of each offered tool, by name (where the wire format carries one).
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # The request's messages as the model reads them, in order: ("turn", text) a user message
    # that starts a turn, ("aside", text) user text sent after tool results, ("reply", "") an
    # assistant reply, ("result", text) a tool result.
    history: tuple[tuple[str, str], ...] = ()
    # What the messages continue from without showing it: the content of the server-side
    # compaction item the (Responses) input starts at, "" when there is none. A compacted view
    # counts its turns from that item, so a prompt the user types again could land on the turn
    # and step it held before the compaction; its tool calls still get ids of their own.
    context: str = ""


class Turns:
    """Where a request's conversation is in the script, read message by message.

    A user message with text and no tool results starts a turn. User text sent after tool
    results (in the same Anthropic message; an OpenAI user message after the `tool` messages or
    `function_call_output` items) is an aside: a client's volatile facts (the time, git status)
    that continue the turn, or the user's next question after a turn that ended on a tool call
    (a structured output's tool, a call stopped for approval). Which one it is depends on the
    script, so the aside is kept in `history` and `ScriptedModel.resolve` decides. A further
    user message right after a question or an aside joins it (the question's blocks, sent as
    messages of their own)."""

    def __init__(self) -> None:
        self.turn: int = 0
        self.text: str = ""
        self.step: int = 0
        self.results: list[str] = []
        self.history: list[tuple[str, str]] = []
        self.after: str = ""  # what the latest user message continues: turn, tool, aside, ""
        self.context: str = ""

    def compacted(self, content: str) -> None:
        """A server-side compaction item: what follows continues from `content`."""
        self.context = content

    def user(self, text: str) -> None:
        """A user message's text (an aside when it follows tool results)."""
        if self.after in ("turn", "aside"):
            kind, before = self.history[-1]
            joined = f"{before}\n{text}" if text else before
            self.history[-1] = (kind, joined)
            if self.after == "turn":
                self.text = joined
            return
        if self.after == "tool":
            self.history.append(("aside", text))
            self.after = "aside"
            return
        self.turn += 1
        self.text, self.step, self.results = text, 0, []
        self.history.append(("turn", text))
        self.after = "turn"

    def reply(self) -> None:
        """An assistant reply."""
        self.step += 1
        self.history.append(("reply", ""))
        self.after = ""

    def result(self, text: str) -> None:
        """A tool result."""
        self.results.append(text)
        self.history.append(("result", text))
        self.after = "tool"

    def conversation(
        self, tools: tuple[str, ...], schemas: Mapping[str, Mapping[str, Any]]
    ) -> Conversation:
        return Conversation(
            self.turn,
            self.text,
            self.step,
            tools,
            tuple(self.results),
            schemas,
            tuple(self.history),
            self.context,
        )


def offered_tools(
    specs: Iterable[Any], schema_key: str
) -> tuple[tuple[str, ...], dict[str, Mapping[str, Any]]]:
    """`Conversation.tools` and `.schemas` from a request's tool specs (non-mappings skipped);
    `schema_key` names where the wire format keeps the input schema."""
    found = [s for s in specs if isinstance(s, Mapping)]
    names = tuple(str(s.get("name")) for s in found)
    schemas = {
        str(s.get("name")): s[schema_key] for s in found if isinstance(s.get(schema_key), Mapping)
    }
    return names, schemas


@dataclass(frozen=True)
class ToolCallOut:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    """The model's answer to one request."""

    text: str
    tool_calls: tuple[ToolCallOut, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def output_tokens(self) -> int:
        n = count_tokens(self.text)
        for call in self.tool_calls:
            n += count_tokens(call.name) + count_tokens(json.dumps(call.input, sort_keys=True)) + 4
        return max(n, 1)


class ScriptedModel:
    """Answers requests from a script, deterministically."""

    def __init__(self, script: Script | None = None) -> None:
        self.script: Script = script if script is not None else builtin_script()

    def _rule(self, conv: Conversation) -> Rule | None:
        for rule in self.script.rules:
            if rule.match is not None and re.search(rule.match, conv.user_text, re.I):
                return rule
        for rule in self.script.rules:
            if rule.match is None and rule.turn == conv.user_turn:
                return rule
        return None

    def _summary(self, conv: Conversation) -> Reply | None:
        """The summary, when the latest user text asks for one that no match rule covers (a
        turn-number rule would give the compaction request some turn's tool calls)."""
        summary = self.script.summary
        if summary is None or conv.step or not summary.asks(conv.user_text):
            return None
        for rule in self.script.rules:
            if rule.match is not None and re.search(rule.match, conv.user_text, re.I):
                return None
        return Reply(summary.text())

    def resolve(self, conv: Conversation) -> Conversation:
        """`conv` with each aside that follows a finished turn read as a new turn: the user's
        next message, sent beside the tool results the last turn still owed (as a real model
        answers the newest question). An aside while the turn has steps left continues it."""
        if not any(kind == "aside" for kind, _ in conv.history):
            return conv
        now = dataclasses.replace(conv, user_turn=0, user_text="", step=0, results=())
        for kind, text in conv.history:
            if kind == "turn" or (kind == "aside" and self._finished(now)):
                now = dataclasses.replace(
                    now, user_turn=now.user_turn + 1, user_text=text, step=0, results=()
                )
            elif kind == "reply":
                now = dataclasses.replace(now, step=now.step + 1)
            elif kind == "result":
                now = dataclasses.replace(now, results=(*now.results, text))
        return now

    def _finished(self, conv: Conversation) -> bool:
        """Has the turn nothing left to do: its next reply would be text without a tool call?"""
        if conv.user_turn == 0 or self._summary(conv) is not None:
            return True
        rule = self._rule(conv)
        if rule is None and self.script.explore:
            from . import explore

            results = conv.results[: conv.step]
            return explore.next_call(conv.user_text, conv.tools, conv.schemas, results) is None
        return rule is None or conv.step >= len(rule.steps)

    def reply(self, conv: Conversation) -> Reply:
        """The model's answer to the request `conv` describes."""
        conv = self.resolve(conv)
        summary = self._summary(conv)
        if summary is not None:
            return summary
        rule = self._rule(conv)
        if rule is None and self.script.explore:
            return self._explore(conv)
        if rule is None:
            return Reply(self.script.default)
        if conv.step >= len(rule.steps):
            # Past the script's steps: close the turn rather than loop on tools forever.
            last = rule.steps[-1]
            return Reply(last.text if last.tool is None and last.text else "Done.")
        step = rule.steps[conv.step]
        if step.tool is None:
            return Reply(step.text or "OK.")
        if step.tool not in conv.tools:  # a model can only call the tools it is offered
            return Reply(f"{step.text} (I would use `{step.tool}`, but it is not available.)")
        seed = _call_seed(conv)
        call_id = hashlib.sha256(seed).hexdigest()[:20]
        calls = [ToolCallOut(call_id, step.tool, dict(step.input))]
        for n, more in enumerate(step.parallel, 1):
            if more.tool in conv.tools:
                more_id = hashlib.sha256(seed + f":{n}".encode()).hexdigest()[:20]
                calls.append(ToolCallOut(more_id, more.tool, dict(more.input)))
        return Reply(step.text, tuple(calls))

    def _explore(self, conv: Conversation) -> Reply:
        from . import explore

        results = conv.results[: conv.step]
        call = explore.next_call(conv.user_text, conv.tools, conv.schemas, results)
        if call is None:
            return Reply(explore.answer(conv.user_text, conv.tools, conv.schemas, results))
        name, args = call
        call_id = hashlib.sha256(_call_seed(conv)).hexdigest()[:20]
        return Reply(f"Calling {name}.", (ToolCallOut(call_id, name, args),))


def _call_seed(conv: Conversation) -> bytes:
    """What a tool call's id is derived from: deterministic, and unique within a conversation,
    as a real call id is ("The unique ID of the function tool call generated by the model",
    openai-python's `ResponseFunctionToolCall.call_id`). Clients rely on it: openai-agents drops
    an input item whose call_id it has seen (`deduplicate_input_items`), so a repeated id would
    lose the new call and its output would answer nothing."""
    seed = f"{conv.user_turn}:{conv.step}:{conv.user_text}"
    return (f"{seed}:{conv.context}" if conv.context else seed).encode()


class _Turn(BaseModel):
    """One turn of the built-in session's file: the user's prompt and the model's steps."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    prompt: str
    steps: list[Step] = Field(min_length=1)


@functools.cache
def builtin_script() -> Script:
    """The built-in coding session (data/session.yaml), read once. The tools it calls are
    those of prefixlock.emulator.workspace: list_files, read_file, grep, edit_file, run_tests,
    git_diff."""
    turns = [_Turn.model_validate(t) for t in read_yaml("session.yaml")["turns"]]
    return Script(
        rules=[Rule(turn=i + 1, steps=t.steps) for i, t in enumerate(turns)],
        prompts=[t.prompt for t in turns],
    )


@functools.cache
def builtin_prompts() -> tuple[str, ...]:
    """The user messages of the built-in session, in order."""
    return tuple(builtin_script().prompts)


if TYPE_CHECKING:
    BUILTIN: Script
    BUILTIN_PROMPTS: tuple[str, ...]
else:

    def __getattr__(name: str) -> Any:
        # Read on first use, not on import: the CLI imports this package for every command.
        if name == "BUILTIN":
            return builtin_script()
        if name == "BUILTIN_PROMPTS":
            return builtin_prompts()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# For clients whose tools the built-in session does not know (`prefixlock run`): every turn
# explores with the offered tools and summarizes what they returned.
EXPLORER = Script(explore=True)


def builtin_requests_per_session() -> int:
    """How many requests one pass through the built-in session makes (one per step)."""
    return sum(len(rule.steps) for rule in builtin_script().rules)
