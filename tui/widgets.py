"""The chat app's widgets: conversation entries and the cache panel. Formatting only; the
numbers come from `prefixlock.tui.state`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Static

if TYPE_CHECKING:  # imported with the first answer (markdown-it, pygments), the first event
    # (the SDK's events) or the first figures (the panel's state): not before the prompt
    from rich.markdown import Markdown as RichMarkdown

    from prefixlock.events import Event, SubagentFinish

    from .state import PanelView


def _one_line(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def tool_title(name: str, args: dict[str, Any]) -> str:
    """'read_file path=src/app.py': the tool and its most telling arguments on one line."""
    from prefixlock.canonical import canonical_json

    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else canonical_json(value)
        parts.append(f"{key}={_one_line(str(shown), 24)}")
    # Short enough that the result after it still shows in an 80-column terminal.
    return _one_line(f"{name} " + " ".join(parts), 40)


class UserMessage(Static):
    """What the user typed."""

    DEFAULT_CLASSES: ClassVar[str] = "entry user"

    def __init__(self, text: str) -> None:
        super().__init__(Text("› ") + Text(text), markup=False)
        self.text = text


class Note(Static):
    """A line from the app itself: command output, faults, approvals, cache events."""

    DEFAULT_CLASSES: ClassVar[str] = "entry note"

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Text(text), markup=False)
        self.add_class(kind)
        self.text: str = text
        self.kind: str = kind


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

    DEFAULT_CSS: ClassVar[str] = "MarkdownView { height: auto; }"

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text: str = text
        self._cache: tuple[str, bool, RichMarkdown] | None = None

    def render(self) -> RichMarkdown:
        dark = True  # before mounting, assume the default (dark) theme
        with contextlib.suppress(Exception):
            dark = self.app.current_theme.dark
        if self._cache is None or self._cache[0] != self.text or self._cache[1] != dark:
            from rich.markdown import Markdown as RichMarkdown

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

    DEFAULT_CLASSES: ClassVar[str] = "entry assistant"
    DEFAULT_CSS: ClassVar[str] = """
    AssistantMessage { height: auto; }
    AssistantMessage > MarkdownView.block { margin-bottom: 1; }
    """

    FREEZE_CHARS = 800  # re-render at most about this much live text per frame

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text: str = text
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


class PlainCollapsible(Collapsible):
    """A Collapsible whose title is plain text. Textual's parses a `str` title as markup, so a
    tool argument such as `main([` raised MarkupError and `app/[id]/page.tsx` lost its `[id]`;
    every title here is dynamic (tool arguments, results, agent names, tasks)."""

    def __init__(self, *children: Widget, title: str, collapsed: bool) -> None:
        # The constructor parses its title too: give it none, then set ours as text.
        super().__init__(*children, title="", collapsed=collapsed)
        self.title = title

    def _watch_title(self, title: str) -> None:
        self._title.label = Content(title)


class ToolEntry(PlainCollapsible):
    """A tool call and its result folded to one line; expand to see the result."""

    DEFAULT_CLASSES: ClassVar[str] = "entry tool"

    def __init__(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.base_title: str = tool_title(name, args)
        self.done: bool = False
        self.subagent_run: str | None = None  # a `delegate` call: the run it started
        self.subagent_name = ""  # ... and its agent's name
        self.subagent_failed = False  # ... which ended in an error summary (failure, limit)
        self.body: Static = Static(Text("(running…)"), markup=False, classes="tool-body")
        super().__init__(self.body, title=f"{self.base_title}  …", collapsed=True)

    def show_progress(self, progress: str) -> None:
        """A running call's live state on its folded line (a `delegate` call: its subagent's
        name and figures so far), ahead of the arguments so it survives 80 columns."""
        if not self.done:
            args = self.base_title[len(self.tool_name) :].strip()
            self.title: str = f"{self.tool_name} {progress}" + (f"  {args}" if args else "")
            self.body.update(Text(f"(running: {progress})"))

    def set_result(self, content: str, is_error: bool) -> None:
        self.done = True
        lines = content.count("\n") + 1 if content else 0
        failed = is_error or self.subagent_failed
        mark = "✗" if failed else "✓"
        first = _one_line(content.splitlines()[0] if content else "", 40)
        # A `delegate` call names its subagent rather than repeating the task its entry shows.
        head = f"{self.tool_name} ⎇ {self.subagent_name}" if self.subagent_name else self.base_title
        self.title = f"{mark} {head}  → {first} ({lines} lines)"
        if failed:
            self.add_class("error")
        self.body.update(Text(content[:20_000]))


class SubagentText(PlainCollapsible):
    """One run of a subagent's own text, folded to one line while it streams; expand to read."""

    DEFAULT_CLASSES: ClassVar[str] = "entry tool subagent-text"

    def __init__(self) -> None:
        self.text: str = ""
        self.body: Static = Static(Text(""), markup=False, classes="tool-body")
        super().__init__(self.body, title="…", collapsed=True)

    def add(self, fragment: str) -> None:
        self.text += fragment
        self.title: str = f"… {_one_line(self.text, 56)}"
        self.body.update(Text(self.text[:20_000]))


class SubagentEntry(PlainCollapsible):
    """A subagent run, filled in live: its own text and tool calls (one line each) and its
    own subagents (nested entries, one level deeper each), then its summary, cost and hit rate.

    Only the figures of the subagent's own requests are shown here; the cache panel counts a
    subagent once, from its SubagentFinish, never from these inner events."""

    DEFAULT_CLASSES: ClassVar[str] = "entry subagent"

    def __init__(self, name: str, model: str, task: str, depth: int = 1, run_id: str = "") -> None:
        self.agent_name = name
        self.run_id = run_id  # routes the run's events here (parallel runs of one agent)
        self.model = model
        self.depth = depth
        self.task_line: str = _one_line(task, 40)
        self.inner: Vertical = Vertical(classes="subagent-body")
        self.summary: Static = Static(Text("(working…)"), markup=False, classes="subagent-summary")
        self.tools: dict[str, ToolEntry] = {}
        self._text: SubagentText | None = None
        # Text lines of the request now streaming: a retrying fault removes them (the retry
        # streams that answer again from its start), a UsageReport makes them final.
        self._attempt_text: list[SubagentText] = []
        self.requests: int = 0
        self.cost: Decimal | None = Decimal(0)
        self.finished: bool = False
        self.tool_line: ToolEntry | None = None  # the `delegate` call that started this run
        super().__init__(self.inner, self.summary, title=self._live_title(), collapsed=False)
        self.add_class(f"depth-{min(depth, 4)}")

    def _figures(self) -> str:
        """' 2 req, $0.0012' once requests returned, else ''."""
        if not self.requests:
            return ""
        from .state import format_dollars

        cost = format_dollars(self.cost) if self.cost is not None else "unpriced"
        return f" {self.requests} req, {cost}"

    def _live_title(self) -> str:
        # The running figures before the task, so they survive a narrow terminal.
        return f"⎇ subagent {self.agent_name} on {self.model} …{self._figures()}: {self.task_line}"

    def progress(self) -> str:
        """'⎇ explorer … 2 req, $0.0012 (claude-haiku-4-5)': this run on its call's line."""
        if self.finished:
            return f"⎇ {self.agent_name} done{self._figures()} ({self.model})"
        return f"⎇ {self.agent_name} …{self._figures() or ' working'} ({self.model})"

    def link(self, tool_line: ToolEntry) -> None:
        """Show this run's progress on the folded line of the `delegate` call that started it
        (instead of a bare '…' until the summary returns)."""
        self.tool_line = tool_line
        tool_line.subagent_run = self.run_id or self.agent_name
        tool_line.subagent_name = self.agent_name
        tool_line.show_progress(self.progress())

    async def apply(self, ev: Event) -> None:
        """Fold one event of the subagent's own stream into the entry."""
        from prefixlock.events import (
            CacheBreak,
            ProviderFault,
            TextDelta,
            ToolCall,
            ToolResult,
            UsageReport,
        )

        if isinstance(ev, TextDelta):
            if self._text is None:
                self._text = SubagentText()
                self._attempt_text.append(self._text)
                await self.inner.mount(self._text)
            self._text.add(ev.text)
            return
        self._text = None  # the next text is a new line, after this call or note
        if isinstance(ev, ToolCall):
            entry = ToolEntry(ev.id, ev.name, ev.input)
            self.tools[ev.id] = entry
            await self.inner.mount(entry)
        elif isinstance(ev, ToolResult):
            found = self.tools.get(ev.id)
            if found is None:
                found = ToolEntry(ev.id, ev.name, {})
                await self.inner.mount(found)
            found.set_result(ev.content, ev.is_error)
        elif isinstance(ev, UsageReport):
            self._attempt_text = []
            self.requests += 1
            self.cost = None if self.cost is None or ev.cost is None else self.cost + ev.cost
            if not self.finished:
                self.title: str = self._live_title()
                if self.tool_line is not None:
                    self.tool_line.show_progress(self.progress())
        elif isinstance(ev, CacheBreak):
            await self.inner.mount(
                Note(f"cache miss: {ev.cause}: {ev.tokens_rebilled:,} tokens re-billed", "miss")
            )
        elif isinstance(ev, ProviderFault):
            state = "retrying" if ev.retrying else "gave up"
            if ev.retrying and self._attempt_text:
                for partial in self._attempt_text:
                    await partial.remove()
                state += "; its partial text was discarded"
            self._attempt_text = []
            await self.inner.mount(Note(f"provider fault: {ev.message} ({state})", "error"))

    def finish(self, summary: str, detail: str, error: str | None) -> None:
        self.finished = True
        # The run's final answer is its summary: shown once, below the work, not also as the
        # last of its text lines.
        last = self._text or self._last_text()
        if last is not None and repeats_summary(last.text, summary):
            last.remove()
        self._text = None
        self.title = f"{'✗' if error else '⎇'} subagent {self.agent_name} on {self.model}: {detail}"
        self.summary.update(Text(summary or error or ""))  # a failure's summary names it
        if error:
            self.add_class("error")
        if self.tool_line is not None:
            self.tool_line.subagent_failed = error is not None
            self.tool_line.show_progress(self.progress())
        self.collapsed = True

    def _last_text(self) -> SubagentText | None:
        """The run's last text line when no call or nested run came after it (its final
        answer; notes such as a cache miss may follow it)."""
        for child in reversed(list(self.inner.children)):
            if isinstance(child, SubagentText):
                return child
            if not isinstance(child, Note):
                return None
        return None


def repeats_summary(text: str, summary: str) -> bool:
    """Is `text` (a subagent's last text line) the answer its `summary` returns: the same
    text, the same cut at the summary's token cap, or the body of a limit's summary?"""
    said = text.strip()
    if not said:
        return False
    head = summary.split("\n[summary cut at ", 1)[0].strip()
    return bool(head) and (said == head or said.startswith(head) or head.endswith(said))


def delegate_line(entries: Iterable[ToolEntry], task: str) -> ToolEntry | None:
    """The running `delegate` call a subagent run that just started belongs to: the oldest one
    not yet linked to a run, the one whose task argument is `task` first (parallel calls)."""
    free = [
        e for e in entries if e.tool_name == "delegate" and not e.done and e.subagent_run is None
    ]
    same = [e for e in free if str(e.args.get("task", "")) == task]
    found = same or free
    return found[0] if found else None


def subagent_detail(ev: SubagentFinish) -> str:
    """'1,234 tok, hit 87%, $0.0021, 12x compression': a finished subagent on one line."""
    from .state import format_dollars

    cost = format_dollars(ev.cost) if ev.cost is not None else "unpriced"
    return (
        f"{ev.usage.input_total + ev.usage.output:,} tok, hit {ev.hit_rate:.0%}, "
        f"{cost}, {ev.compression:.0f}x compression"
    )


def history_entry(role: str, text: str) -> Widget:
    """The widget showing one stored entry of a resumed session, or one taken off screen
    (`entry_row`); a note keeps its kind ("note:warn")."""
    if role == "user":
        return UserMessage(text)
    if role == "assistant":
        return AssistantMessage(text)
    if role.startswith("note:"):
        return Note(text, role.removeprefix("note:"))
    return Note(text, "tool")


def entry_row(widget: Widget) -> tuple[str, str]:
    """What `history_entry` needs to show `widget` again: its role and text (a tool call or a
    subagent run comes back as its one-line title, as a resumed session shows it)."""
    if isinstance(widget, UserMessage):
        return "user", widget.text
    if isinstance(widget, AssistantMessage):
        return "assistant", widget.text
    if isinstance(widget, Note):
        return f"note:{widget.kind}", widget.text
    if isinstance(widget, Collapsible):
        return "tool", str(widget.title)
    return "tool", str(widget.render())


class Conversation(VerticalScroll):
    """The scrolling list of entries."""

    can_focus = True

    class ReachedTop(Message):
        """Scrolled to the top: the moment to show a resumed session's earlier entries."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 < old_value:  # arriving at the top, not every frame spent there
            self.post_message(self.ReachedTop())

    def release_anchor(self) -> None:
        super().release_anchor()
        # Every user scroll releases the anchor first; Textual re-anchors only when scroll_y
        # changes and lands at the end. Page Down or a wheel notch at the end moves nothing,
        # so the view stayed released and new output went on below the screen: once the
        # scroll is applied, a view that is (and stays) at the end follows again.
        self.call_after_refresh(self._follow_if_at_end)

    def _follow_if_at_end(self) -> None:
        if self.scroll_y >= self.max_scroll_y and self.scroll_target_y >= self.max_scroll_y:
            self.anchor()


class EarlierEntries(Note):
    """The top line of a resumed session: how many earlier entries are not on screen yet.
    Scrolling to the top (wheel, Home, Page Up) shows the next batch."""

    def __init__(self, count: int) -> None:
        super().__init__(self.caption(count), "info")

    @staticmethod
    def caption(count: int) -> str:
        return f"({count} earlier entries: scroll up to show them)"


class CachePanel(Static):
    """The always-visible cache figures."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def show(self, v: PanelView) -> None:
        from .state import context_share, format_countdown, format_dollars, format_tokens, sparkline

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
        if v.below_minimum:
            t.append("warm   below minimum:\n       not cached\n")
        else:
            t.append(f"warm   {format_countdown(v.warm_seconds)}\n")
        t.append("cost\n", style="bold")
        t.append(f" main  {format_dollars(v.cost_main):>9}\n")
        t.append(f" sub   {format_dollars(v.cost_sub):>9}\n")
        t.append(f" saved {format_dollars(v.saved):>9}\n")
        t.append(f"keep-alive {'on' if v.keepalive else 'off'}\n")
        share = context_share(v)
        if share is None:
            t.append(f"context {format_tokens(v.context_tokens)}\n")
        else:
            window = format_tokens(v.context_window or 0)
            t.append(
                f"context {share:4.0%} of {window}\n", style="bold red" if share >= 0.8 else ""
            )
        t.append("last miss\n", style="bold")
        t.append(f" {v.last_miss or 'none'}")
        self.update(t)


def compose_header(text: str) -> ComposeResult:
    yield Static(Text(text), id="header", markup=False)
