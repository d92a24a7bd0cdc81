"""What `prefixlock run --output-format json|stream-json` prints: the session's events turned
into the JSON objects Claude Code's headless mode prints (`claude -p --output-format ...`), so a
script written for one reads the other.

The shapes (docs/run-output.md lists every field): `stream-json` is one object per line, a
`system`/`init` line first, an `assistant` line per model reply (its text and tool calls), a
`user` line per batch of tool results, and last the `result` object that `json` prints alone.
Fields prefixlock adds (the cache figures) sit under `prefixlock`, never in Claude Code's names.

Pure: events in, dicts out; the caller prints them and measures the time.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..billing.usage import Usage
from ..events import Event, TextDelta, ToolCall, ToolResult, UsageReport

OUTPUT_FORMATS = ("text", "json", "stream-json")

# The exit codes of `prefixlock run` (documented in docs/run-output.md and `run --help`).
EXIT_OK = 0
EXIT_PROVIDER = 1  # the provider failed (after retries) or the stream ended without a reply
EXIT_USAGE = 2  # a user error: a bad flag, file or setting (said in one line)
EXIT_LIMIT = 3  # --max-turns or --max-dollars stopped the task before the model finished
EXIT_REFUSED = 4  # the model finished, but a write, command or MCP call was refused

# Claude Code's result subtypes for the same endings.
_SUBTYPES = {"turns": "error_max_turns", "dollars": "error_max_budget_usd"}


def usage_fields(usage: Usage) -> dict[str, int]:
    """Usage in Anthropic's names (Claude Code's `usage`): input is the uncached part only."""
    return {
        "input_tokens": usage.uncached_input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": usage.output,
    }


@dataclass
class Denial:
    """A write, command or MCP call refused with nobody to ask (Claude Code's
    `permission_denials` entry)."""

    tool_name: str
    summary: str
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"tool_name": self.tool_name, "summary": self.summary, "reason": self.reason}


@dataclass
class HeadlessTranscript:
    """Collects one run's events into Claude Code's message shapes."""

    session_id: str
    model: str
    _text: list[str] = field(default_factory=list)
    _calls: list[dict[str, Any]] = field(default_factory=list)
    _results: list[dict[str, Any]] = field(default_factory=list)
    replies: int = 0
    denials: list[Denial] = field(default_factory=list)

    def init(self, cwd: str, tools: list[str], permission_mode: str) -> dict[str, Any]:
        """The first line of `stream-json`."""
        return {
            "type": "system",
            "subtype": "init",
            "cwd": cwd,
            "session_id": self.session_id,
            "tools": tools,
            "model": self.model,
            "permissionMode": permission_mode,
        }

    def feed(self, event: Event) -> list[dict[str, Any]]:
        """The lines this event completes (none, or an assistant or user message)."""
        out: list[dict[str, Any]] = []
        if isinstance(event, TextDelta):
            self._flush_results(out)
            self._text.append(event.text)
        elif isinstance(event, ToolCall):
            self._flush_results(out)
            self._calls.append(
                {"type": "tool_use", "id": event.id, "name": event.name, "input": event.input}
            )
        elif isinstance(event, UsageReport):
            # A reply ended (its usage is known): its text and calls are one assistant message.
            self._flush_results(out)
            content: list[dict[str, Any]] = []
            text = "".join(self._text)
            if text:
                content.append({"type": "text", "text": text})
            content.extend(self._calls)
            self._text, self._calls = [], []
            self.replies += 1
            out.append(
                {
                    "type": "assistant",
                    "message": {
                        "type": "message",
                        "role": "assistant",
                        "model": event.model,
                        "content": content,
                        "usage": usage_fields(event.usage),
                    },
                    "parent_tool_use_id": None,
                    "session_id": self.session_id,
                }
            )
        elif isinstance(event, ToolResult):
            self._results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": event.id,
                    "content": event.content,
                    "is_error": event.is_error,
                }
            )
        return out

    def finish(self) -> list[dict[str, Any]]:
        """Lines still open at the end (tool results of a turn a limit stopped)."""
        out: list[dict[str, Any]] = []
        self._flush_results(out)
        return out

    def _flush_results(self, out: list[dict[str, Any]]) -> None:
        if self._results:
            out.append(
                {
                    "type": "user",
                    "message": {"role": "user", "content": self._results},
                    "parent_tool_use_id": None,
                    "session_id": self.session_id,
                }
            )
            self._results = []

    def result(
        self,
        *,
        answer: str,
        limit: str | None,
        error: str | None,
        usage: Usage,
        cost: Decimal | None,
        hit_rate: float,
        duration_ms: int,
    ) -> dict[str, Any]:
        """The `result` object: the whole of `json`, the last line of `stream-json`."""
        if error is not None:
            subtype = "error_during_execution"
        elif limit is not None:
            subtype = _SUBTYPES.get(limit, "error_during_execution")
        else:
            subtype = "success"
        return {
            "type": "result",
            "subtype": subtype,
            "is_error": subtype != "success",
            "duration_ms": duration_ms,
            "num_turns": self.replies,
            "result": answer if error is None else error,
            "session_id": self.session_id,
            # Claude Code's field is a float in dollars; the exact decimal is under prefixlock.
            "total_cost_usd": float(cost) if cost is not None else None,
            "usage": usage_fields(usage),
            "permission_denials": [d.as_json() for d in self.denials],
            "prefixlock": {
                "model": self.model,
                "cost": str(cost) if cost is not None else None,
                "hit_rate": round(hit_rate, 4),
                "cache_write_5m_tokens": usage.cache_write_5m,
                "cache_write_1h_tokens": usage.cache_write_1h,
                "exit_code": exit_code(limit, error, self.denials),
            },
        }


def exit_code(limit: str | None, error: str | None, denials: list[Denial]) -> int:
    """The run's exit code: a provider failure, then a limit, then a refusal, else 0."""
    if error is not None:
        return EXIT_PROVIDER
    if limit is not None:
        return EXIT_LIMIT
    if denials:
        return EXIT_REFUSED
    return EXIT_OK
