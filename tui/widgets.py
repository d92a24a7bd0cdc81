"""The chat app's widgets: conversation entries and the cache panel. Formatting only; the
numbers come from `tui.state`."""

from __future__ import annotations

import contextlib
from typing import Any

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from harness.canonical import canonical_json

from .state import PanelView, format_countdown, format_dollars, format_tokens, sparkline


def _one_line(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def tool_title(name: str, args: dict[str, Any]) -> str:
    """'read_file path=src/app.py': the tool and its most telling arguments on one line."""
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else canonical_json(value)
        parts.append(f"{key}={_one_line(str(shown), 24)}")
    # Short enough that the result after it still shows in an 80-column terminal.
    return _one_line(f"{name} " + " ".join(parts), 40)


class UserMessage(Static):
    """What the user typed."""

    DEFAULT_CLASSES = "entry user"

    def __init__(self, text: str) -> None:
        super().__init__(Text("› ") + Text(text), markup=False)


class Note(Static):
    """A line from the app itself: command output, faults, approvals, cache events."""

    DEFAULT_CLASSES = "entry note"

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Text(text), markup=False)
        self.add_class(kind)


def split_markdown(text: str) -> tuple[list[str], str]:
    """Complete blocks (paragraphs, whole code fences) and the unfinished tail of `text`.

    A block ends at a blank line outside a code fence; the tail is what follows the last such
    line. Pure, so the streaming widget and a test agree on where blocks end.
    """
    blocks: list[str] = []
    start = 0
    in_fence = False
    pos = 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and not line.strip() and line.endswith("\n"):
            block = text[start:pos].strip("\n")
            if block:
                blocks.append(block)
            start = pos
    return blocks, text[start:]


class MarkdownView(Widget):
    """Markdown rendered with Rich (code blocks highlighted for the current theme), parsed
    when painted and cached until its text or the theme changes."""

    DEFAULT_CSS = "MarkdownView { height: auto; }"

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text
        self._cache: tuple[str, bool, RichMarkdown] | None = None

    def render(self) -> RichMarkdown:
        dark = True  # before mounting, assume the default (dark) theme
        with contextlib.suppress(Exception):
            dark = self.app.current_theme.dark
        if self._cache is None or self._cache[0] != self.text or self._cache[1] != dark:
            md = RichMarkdown(self.text, code_theme="monokai" if dark else "default")
            self._cache = (self.text, dark, md)
        return self._cache[2]

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.refresh(layout=True)


class AssistantMessage(Vertical):
    """The model's answer: Markdown with highlighted code, streamed fragment by fragment.

    Finished blocks (paragraphs, whole code fences) are frozen into their own views, rendered
    once; only the unfinished tail is re-rendered as fragments arrive, and Textual paints at
    most once a frame. So a fast stream of a long answer costs a small render per frame, and
    what is on screen is exactly the text that arrived.
    """

    DEFAULT_CLASSES = "entry assistant"
    DEFAULT_CSS = """
    AssistantMessage { height: auto; }
    AssistantMessage > MarkdownView.block { margin-bottom: 1; }
    """

    FREEZE_CHARS = 800  # re-render at most about this much live text per frame

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text
        blocks, tail = split_markdown(text)
        self._frozen = len(text) - len(tail)
        self._initial = [MarkdownView(b, classes="block") for b in blocks]
        self._tail = MarkdownView(tail, classes="tail")

    def compose(self) -> ComposeResult:
        yield from self._initial
        yield self._tail

    async def add(self, fragment: str) -> None:
        if not fragment:
            return
        self.text += fragment
        live = self.text[self._frozen :]
        if len(live) > self.FREEZE_CHARS:
            blocks, tail = split_markdown(live)
            if blocks:
                # One view for the finished blocks: a mount per ~500 tokens, not per paragraph.
                self._frozen = len(self.text) - len(tail)
                self._tail.set_text(tail)
                await self.mount(
                    MarkdownView("\n\n".join(blocks), classes="block"), before=self._tail
                )
                return
        self._tail.set_text(live)

    def set_text(self, text: str) -> None:
        """Re-render (after a theme change) by refreshing every view."""
        for view in self.query(MarkdownView):
            view._cache = None
            view.refresh(layout=True)

    async def finish(self) -> None:
        """The answer is complete (kept for symmetry with streaming widgets)."""


class ToolEntry(Collapsible):
    """A tool call and its result folded to one line; expand to see the result."""

    DEFAULT_CLASSES = "entry tool"

    def __init__(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.base_title = tool_title(name, args)
        self.body = Static(Text("(running…)"), markup=False, classes="tool-body")
        super().__init__(self.body, title=f"{self.base_title}  …", collapsed=True)

    def set_result(self, content: str, is_error: bool) -> None:
        lines = content.count("\n") + 1 if content else 0
        mark = "✗" if is_error else "✓"
        first = _one_line(content.splitlines()[0] if content else "", 40)
        self.title = f"{mark} {self.base_title}  → {first} ({lines} lines)"
        if is_error:
            self.add_class("error")
        self.body.update(Text(content[:20_000]))


class SubagentEntry(Collapsible):
    """A subagent run: nested entries while it works, then its summary."""

    DEFAULT_CLASSES = "entry subagent"

    def __init__(self, name: str, model: str, task: str) -> None:
        self.agent_name = name
        self.model = model
        self.inner = Vertical(classes="subagent-body")
        self.summary = Static(Text("(working…)"), markup=False, classes="subagent-summary")
        super().__init__(
            self.inner,
            self.summary,
            title=f"⎇ subagent {name} on {model}: {_one_line(task, 40)}",
            collapsed=False,
        )

    def finish(self, summary: str, detail: str, error: str | None) -> None:
        self.title = f"{'✗' if error else '⎇'} subagent {self.agent_name} on {self.model}: {detail}"
        self.summary.update(Text(error or summary))
        if error:
            self.add_class("error")
        self.collapsed = True


class Conversation(VerticalScroll):
    """The scrolling list of entries."""

    can_focus = True


class CachePanel(Static):
    """The always-visible cache figures."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def show(self, v: PanelView) -> None:
        t = Text()
        t.append("CACHE\n", style="bold")
        t.append(f"model  {_one_line(v.model, 20)}\n")
        t.append("hit    ")
        t.append(f"{v.hit_rate:6.1%}\n", style="bold")
        t.append(f"turns  {sparkline(v.sparkline, 20) or '-'}\n")
        t.append("last turn\n", style="bold")
        t.append(f" read  {format_tokens(v.last_read):>7}\n")
        t.append(f" write {format_tokens(v.last_written):>7}\n")
        t.append(f" new   {format_tokens(v.last_uncached):>7}\n")
        t.append(f"warm   {format_countdown(v.warm_seconds)}\n")
        t.append("cost\n", style="bold")
        t.append(f" main  {format_dollars(v.cost_main):>9}\n")
        t.append(f" sub   {format_dollars(v.cost_sub):>9}\n")
        t.append(f" saved {format_dollars(v.saved):>9}\n")
        t.append(f"keep-alive {'on' if v.keepalive else 'off'}\n")
        t.append("last miss\n", style="bold")
        t.append(f" {v.last_miss or 'none'}")
        self.update(t)


def compose_header(text: str) -> ComposeResult:
    yield Static(Text(text), id="header", markup=False)
