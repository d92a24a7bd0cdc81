"""The Textual chat app: conversation, cache panel, input line, dialogs.

All talking to the SDK goes through `prefixlock.tui.backend.ChatBackend`; all figures come from
`prefixlock.tui.state.CacheState`; command parsing is `prefixlock.tui.commands.parse`. This module
only wires events to widgets and keys to actions.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from prefixlock.errors import PrefixlockError

from .allocator import return_large_buffers
from .alt_enter import use_alt_enter_parser
from .first_prompt import FirstPrompt, typed_here
from .mcp_restart import McpCommands
from .offscreen import OffscreenRows
from .project_commands import ProjectCommands

if TYPE_CHECKING:  # the SDK's modules load behind the first frame (`ChatApp.open_backend`)
    from prefixlock.coding.workspace import ApprovalRequest, Decision
    from prefixlock.events import Event, SubagentEvent, SubagentFinish, SubagentStart, ToolCall
    from prefixlock.media import Image

    from .approval_flow import McpCallRequest
    from .backend import ChatBackend
    from .commands import Parsed
    from .offscreen_file import ChunkFile
    from .prompt_input import PromptArea, PromptInput

    # The conversation's widgets load with the conversation, not before the first frame: each
    # Textual widget class costs its `__init_subclass__` (a `dir()` and the bindings' merge).
    from .widgets import (
        AssistantMessage,
        Conversation,
        EarlierEntries,
        Note,
        SubagentEntry,
        ToolEntry,
    )

HISTORY_BATCH = 12  # a resumed session's entries mounted at a time: more than a screen holds
# Entries kept mounted in a long session: past LIVE_LIMIT, the oldest go back to the list that
# scrolling to the top mounts again (`trim_conversation`), so memory and each frame's layout
# stay flat however long the session runs. Both are many screens of entries.
LIVE_LIMIT = 160
LIVE_KEEP = 100


def release_render_caches() -> None:
    """Let go of what Textual and Rich cached for widgets that were removed (entries taken off
    screen, `/clear`). Each cache only saves computing a value again; the next frame fills them
    with what is on screen.

    - `StylesCache.get_inner_outer` is an `lru_cache` on a method (Textualize/textual#6665):
      its keys hold the `StylesCache` of the last 1024 widgets drawn, every line each one
      cached included, long after the widget is gone.
    - The `lru_cache`s on `textual.geometry.Region`'s methods (up to 4096 results each, keyed
      by the regions laid out) and Rich's `cached_cell_len` (up to 4096 strings drawn): bounded,
      but a long chat fills them over hundreds of turns with the geometry and the text of
      entries long gone; that was most of what its memory grew by past the mounted window
      (tests/benchmarks/bench_tui_long.py).
    """
    from rich import cells
    from textual._styles_cache import StylesCache
    from textual.geometry import Region

    cached = [StylesCache.get_inner_outer, *vars(Region).values(), cells.cached_cell_len]
    for fn in cached:
        clear = getattr(fn, "cache_clear", None)
        if clear is not None:  # a version without the cache has nothing to release
            clear()


FIRST_CSS = "first.tcss"
REST_CSS = "app.tcss"

PLACEHOLDER = "Message, /command or @file (enter sends, ctrl+j new line)"


@dataclass(frozen=True)
class IdleGate:
    """When the session starts to open behind the first frame: once the prompt has had no key
    for `quiet` seconds, and at the latest `latest` seconds after the frame. The opening's
    imports (in a thread, holding the interpreter in turns with the screen) and its start-up
    work on the loop would otherwise slow the echo of the first keys typed. The default opens
    at once."""

    quiet: float = 0.0
    latest: float = 0.0

    def wait(self, since_frame: float, since_key: float | None) -> float:
        """Seconds still to wait (0: open now), `since_frame` after the first frame and
        `since_key` after the last key (None: none yet)."""
        quiet_for = since_frame if since_key is None else min(since_key, since_frame)
        return max(0.0, min(self.quiet - quiet_for, self.latest - since_frame))


#: `prefixlock chat`'s gate: a pause of a tenth of a second (a key every 0.1 s is 100 words a
#: minute), and never later than half a second after the prompt shows.
START_GATE = IdleGate(quiet=0.1, latest=0.5)


@dataclass(frozen=True)
class Opener:
    """How the chat makes its backend behind the first frame: `open` (blocking: imports the
    SDK, reads and checks the settings; a user error is raised) and the workspace `root` the
    prompt completes @paths in meanwhile."""

    root: Path
    open: Callable[[], ChatBackend]


class ChatApp(ProjectCommands, McpCommands, App[None]):
    """prefixlock's coding assistant."""

    # first.tcss: the first frame's (the header, the stand-in prompt); app.tcss: the rest. A
    # chat that draws its first frame before the session opens parses app.tcss behind it.
    CSS_PATH: ClassVar[list[str | PurePath] | None] = [FIRST_CSS, REST_CSS]
    TITLE: str | None = "prefixlock chat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "help"),
        Binding("ctrl+o", "model", "model"),
        Binding("ctrl+r", "toggle_tools", "tools"),
        Binding("ctrl+l", "clear", "clear", show=False),
        Binding("ctrl+g", "external_editor", "editor", show=False),
        Binding("f2", "keepalive", "keep-alive", show=False),
        Binding("ctrl+t", "theme_toggle", "theme", show=False),
        Binding("escape", "cancel_turn", "cancel", show=False),
        # Ctrl+C cancels a running turn; before the prompt's own copy binding (priority), and
        # when no turn runs it copies or says how to quit as Textual does.
        Binding("ctrl+c", "interrupt", "cancel", show=False, priority=True),
        # From the prompt too: reading back must not need a focus change first.
        Binding("pageup", "page_conversation(-1)", "page up", show=False),
        Binding("pagedown", "page_conversation(1)", "page down", show=False),
        Binding("ctrl+q", "quit", "quit"),
    ]

    def __init__(
        self,
        backend: ChatBackend | None = None,
        *,
        opener: Opener | None = None,
        tick: float = 1.0,
        blink: bool = True,
        freeze_heap: bool = False,
        typeahead_grace: float | None = None,
        idle_gate: IdleGate | None = None,
    ) -> None:
        """`backend`: one made already; or `opener`, which makes it in a thread after the
        first frame, so the prompt draws and takes keys before the SDK is even imported
        (`prefixlock chat` in a terminal). A user error it raises closes the app and is kept
        in `open_error` for the command line to say. `idle_gate`: when the session starts to
        open after the first frame (default: at once)."""
        if (backend is None) == (opener is None):
            raise ValueError("give the chat a backend or an opener, not both")
        use_alt_enter_parser()  # before the driver starts: Alt+Enter adds a line in tmux/xterm
        # A long chat's request buffers (each the size of the conversation) go back to the
        # system when freed, not into a heap that grows with them (tui/allocator.py).
        return_large_buffers()
        super().__init__(css_path=FIRST_CSS if opener is not None else None)
        self._backend: ChatBackend | None = backend
        self._opener = opener
        self.open_error: PrefixlockError | None = None
        # How long a dialog waits for typing to stop before it takes answers (None: the
        # dialogs' own `screens.TYPEAHEAD_GRACE`; the dialogs load with the first one).
        self.typeahead_grace: float | None = typeahead_grace
        self.freeze_heap = freeze_heap  # `prefixlock chat` sets it: the app owns the process
        self.idle_gate = idle_gate or IdleGate()
        self._key_at: float | None = None  # monotonic time of the last key (the idle gate's)
        self.tick = tick
        self.blink = blink
        self.busy: bool = False
        self.ready: bool = False  # True once the session is open; input before that waits
        self.opening: bool = True  # until the session is open, or failed to open
        # Set once the provider SDK is imported and its client made (in a thread): the first
        # turn waits for it, the screen does not.
        self.prepared: asyncio.Event = asyncio.Event()
        self.preparing: bool = False
        # Messages typed while a turn runs, sent in order when it ends (never dropped).
        self.queued: list[str] = []
        self.next_images: list[Image] = []  # the images of the message about to be sent
        self._pinging = False
        self.delegate_next: str | None = None  # model chosen in the switch dialog's "subagent"
        self._assistant: AssistantMessage | None = None
        # The text shown for the request now streaming. A retried request streams its answer
        # again from the start and the partial text is not kept (see ProviderFault), so a
        # retrying fault removes these; a UsageReport (the request completed) empties the list.
        self._attempt_text: list[AssistantMessage] = []
        self._tools: dict[str, ToolEntry] = {}
        self._subagents: list[SubagentEntry] = []  # open subagent entries, oldest first
        self.last_error: str | None = None
        # A resumed session's entries not on screen yet (oldest first), and the line above the
        # shown ones that counts them.
        # Entries taken off screen, compressed, to mount again on scrolling to the top.
        self._earlier = OffscreenRows()
        self._spill: ChunkFile | None = None  # the file that holds them (_offscreen)
        self._earlier_line: EarlierEntries | None = None
        # The first frame's stand-in prompt until `upgrade_prompt` (`prefixlock chat` in a
        # terminal only), and the keys held while the real prompt takes its place.
        self._first_prompt: FirstPrompt | None = None
        self._upgrading = False
        self._prompt_in = asyncio.Event()
        self._held: list[events.Event] = []

    @property
    def backend(self) -> ChatBackend:
        """The chat's backend (`opened` says whether there is one yet)."""
        if self._backend is None:
            raise RuntimeError("the chat's backend is not open yet")
        return self._backend

    @backend.setter
    def backend(self, backend: ChatBackend) -> None:
        self._backend = backend

    @property
    def opened(self) -> bool:
        return self._backend is not None

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Text(self.header_text()), id="header", markup=False)
        if self._backend is None:
            # `prefixlock chat` in a terminal: the stand-in prompt first, alone under the
            # header; the conversation, the panel (empty until the session opens) and the real
            # prompt take their places behind the gate (`upgrade_prompt`). Laying them out was
            # most of what the first frame cost over a bare Textual app's.
            with Vertical(id="first-area"):
                yield FirstPrompt(placeholder=PLACEHOLDER, id="first-prompt")
        else:
            yield self._body()
            yield self._prompt_area()
        # The footer (its keys recomposed with each focus change) comes after the first frame:
        # it is not needed to type (`_begin_opening`).

    def _body(self) -> Horizontal:
        from .widgets import CachePanel, Conversation

        return Horizontal(Conversation(id="conversation"), CachePanel(id="cache-panel"), id="body")

    def _prompt_area(self) -> PromptArea:
        from .input_history import InputHistory, history_path
        from .prompt_input import PromptArea

        b = self._backend
        history = InputHistory(history_path(b.options.store_path, b.workspace.root) if b else None)
        return PromptArea(
            root=b.workspace.root if b else self._opener.root if self._opener else None,
            history=history,
            blink=self.blink,
            id="input-area",
            placeholder=PLACEHOLDER,
        )

    @property
    def prompt(self) -> PromptInput:
        """The chat's prompt (under any dialog); raises NoMatches while the first frame's
        stand-in has its place (`upgrade_prompt`)."""
        from .prompt_input import PromptInput

        return self.screen_stack[0].query_one("#prompt", PromptInput)

    async def upgrade_prompt(self) -> None:
        """Put the real prompt in the stand-in's place, its text and cursor carried over.
        Keys that come meanwhile are held (`on_event`) and go to the prompt, in order, once it
        has the focus."""
        first = self._first_prompt
        if first is None:
            return
        if self._upgrading:  # under way (a key brought it in): what follows needs it
            await self._prompt_in.wait()
            return
        self._upgrading = True
        self._add_rest_css()
        screen = self.screen_stack[0]
        old = screen.query_one("#first-area")
        try:
            # The keys the stand-in was given already are typed before its text is read.
            taken = asyncio.Event()
            first.call_later(taken.set)
            await taken.wait()
            area = self._prompt_area()
            area.display = False  # one prompt on screen at a time
            await screen.mount(self._body(), before=old)
            self.conversation.anchor()  # stay at the bottom as entries stream in
            await screen.mount(area, after=old)
            prompt = self.prompt
            prompt.value = first.value
            prompt.move_cursor((0, first.cursor_position))
            area.display = True
            old.display = False
            if screen.focused is first or screen.focused is None:
                screen.set_focus(prompt)
            # Held keys first; a key that comes meanwhile is held too, behind them. No await
            # between the last one and letting keys through: none overtakes another.
            while self._held:
                await super().on_event(self._held.pop(0))
            self._first_prompt = None
        finally:
            self._upgrading = False
            self._prompt_in.set()
        await old.remove()

    def _add_rest_css(self) -> None:
        """The styles of what comes behind the first frame (app.tcss), before it is mounted."""
        rest = Path(__file__).with_name(REST_CSS)
        if rest in self.css_path:
            return
        self.css_path.append(rest)
        self.stylesheet.read(rest)
        self.refresh_css(animate=False)

    def header_text(self) -> str:
        if self._backend is None:
            return "prefixlock chat · opening…" + (
                f", {len(self.queued)} queued" if self.queued else ""
            )
        b = self._backend
        # What must survive an 80-column terminal first: "EMULATOR", then the whole session id
        # (what `--resume` needs; a generated one is 32 characters). The model, cut first,
        # is also on the cache panel.
        text = f"{b.provider_label} · session {b.session_id} · {b.model}"
        waiting = f", {len(self.queued)} queued" if self.queued else ""
        if self.opening:
            return f"{text} · opening…{waiting}"
        if self.preparing:
            return f"{text} · connecting…{waiting}"
        if self.busy:
            return f"{text} · working{waiting} (ctrl+c cancels)"
        return text

    async def on_mount(self) -> None:
        # The prompt takes keys from the first frame; the backend (the SDK's imports, the
        # settings' checks) and the session (the store, the emulator, the MCP servers, the
        # agent) open behind it. A message sent before then waits for it (`handle_line`): the
        # first request carries every approved server's tools, so the tool list, and the
        # cached prefix, never change under the session.
        firsts = self.query(FirstPrompt)
        if firsts:
            self._first_prompt = firsts.first()
            self._first_prompt.focus()
        else:
            self.conversation.anchor()  # stay at the bottom as entries stream in
            self.prompt.focus()
        # After the first frame: the opener's imports would hold the interpreter meanwhile.
        self.call_after_refresh(self._begin_opening)

    def _begin_opening(self) -> None:
        # A worker: the app's own messages (the keys among them) go on while it waits.
        self.run_worker(self._open_when_idle(time.monotonic()), group="mcp-consent")

    async def _open_when_idle(self, frame_at: float) -> None:
        """Past the idle gate: the footer, then the backend and the session."""
        while True:
            now = time.monotonic()
            key_at = self._key_at
            wait = self.idle_gate.wait(now - frame_at, None if key_at is None else now - key_at)
            if wait <= 0:
                break
            await asyncio.sleep(wait)
        # The first frame is drawn and its keys echoed: the collector, paused while Textual
        # loaded (`prefixlock.tui.cli`), is on again before the rest of the screen and the SDK
        # load, and Textual's modules are kept out of its full passes.
        self.own_heap()
        await self.upgrade_prompt()
        from textual.widgets import Footer

        screen = self.screen_stack[0]
        await screen.mount(Footer())
        screen.refresh_bindings()  # the footer draws its keys on this signal
        await self._ask_mcp_then_start()

    async def open_backend(self) -> bool:
        """Make the backend with the opener, in a thread (False: a user error closed the
        app, kept in `open_error`)."""
        if self._opener is not None and self._backend is None:
            try:
                backend = await asyncio.to_thread(self._opener.open)
            except PrefixlockError as exc:
                self.open_error = exc
                self.exit(return_code=2)
                return False
            self._backend = backend
            from .input_history import InputHistory, history_path

            prompt = self.prompt
            prompt.input_history = InputHistory(
                history_path(backend.options.store_path, backend.workspace.root)
            )
            self.refresh_header()
        self.backend.approve = self.ask_approval
        self.backend.notify = self.note_setting
        return True

    async def _ask_mcp_then_start(self) -> None:
        """Open the backend, ask about each MCP server the project declares before anything
        starts it (a dialog is answered through the app's own message loop, so this runs as a
        worker), then open the session."""
        if not await self.open_backend():
            return
        from prefixlock.coding.mcp_consent import command_line

        from .screens import McpConsentScreen

        for config in self.backend.mcp_to_ask():
            approved = await self.push_screen_wait(
                McpConsentScreen(config.name, command_line(config), config.source)
            )
            self.backend.answer_mcp(config, bool(approved))
            shown = "started" if approved else "not started (remembered for this project)"
            await self.add_note(f"MCP server {config.name!r}: {shown}", "approval")
        await self._ask_hooks()
        await self._start_session()

    async def _ask_hooks(self) -> None:
        """Ask before the repository's own hooks run (a malformed hooks value is left to
        `start()`, which names it)."""
        from .hook_consent import HookConsentScreen

        try:
            hooks = self.backend.hooks_to_ask()
        except PrefixlockError:
            return
        if hooks:
            answer = await self.push_screen_wait(HookConsentScreen(hooks))
            self.backend.answer_hooks(answer or "no")
            shown = {
                "once": "run in this session",
                "always": "run (remembered for these hooks in this repository)",
            }.get(answer or "no", "not run")
            await self.add_note(f"the repository's hooks: {shown}", "approval")

    async def _start_session(self) -> None:
        try:
            await asyncio.to_thread(self.backend.preload)
            await self.backend.start()
        except PrefixlockError as exc:
            self.opening = False
            await self.add_note(f"cannot start the session: {exc}", "error")
            if self.queued:  # never sent: back into the prompt rather than lost
                prompt = self.prompt
                prompt.value = "\n".join([*self.queued, prompt.value]).strip()
                self.queued.clear()
                self.refresh_header()
            return
        prompt = self.prompt
        from .completion import custom_candidates

        prompt.custom_commands = custom_candidates(self.backend.custom_commands or {})
        self.opening = False
        self.preparing = True
        self.refresh_header()
        self.run_worker(self._prepare(), group="prepare")
        self.own_heap()
        await self.load_history()
        await self.note_resumed_prefix()
        for note in [
            *self.backend.command_notes,
            *self.backend.mcp_notes,
            *self.backend.hook_notes,
        ]:
            await self.add_note(note, "warn")
        if self.backend.offline:
            await self.add_note(
                f"{self.backend.offline_reason}: running on the built-in emulator "
                "(offline, scripted model).",
                "warn",
            )
        self.ready = True
        self.refresh_panel()
        self.set_interval(self.tick, self.on_tick)
        if self.queued and not self.busy:  # typed while the session opened
            self.set_busy(True)
            self.run_turn(self.queued.pop(0))
        target = self.backend.pending_switch()
        if target is not None:
            # --model with --resume: offered as the priced switch /model makes, with its quote,
            # rather than ignored or taken silently (a switch re-bills the cached prefix).
            await self.add_note(
                f"--model {target}: this session resumes on {self.backend.model}; "
                "switching is priced (the quote follows; /model switches later)",
                "warn",
            )
            self.choose_switch(target)

    def own_heap(self) -> None:
        """What is loaded now (the libraries, a resumed session) lives as long as the app that
        owns its process (`freeze_heap`): kept out of the collector's full passes, which would
        otherwise walk all of it while the screen opens (a quarter to half a second on a long
        session). The collector, paused until the first frame (`prefixlock.tui.cli`), is on
        again. An app embedded in another program leaves its collector alone."""
        if self.freeze_heap:
            gc.freeze()
            gc.enable()

    async def _prepare(self) -> None:
        """The provider SDK's import and client, in a thread: the screen stays live (and shows
        'connecting…') while they load; a turn typed meanwhile waits for them."""
        try:
            await asyncio.to_thread(self.backend.prepare_client)
        except Exception as exc:  # the first request reports it properly
            await self.add_note(f"preparing the provider client failed: {exc}", "warn")
        finally:
            self.preparing = False
            self.prepared.set()
            self.refresh_header()

    async def note_resumed_prefix(self) -> None:
        """Say so when a resumed session keeps a stored prefix other than this chat's."""
        note = self.backend.resumed_prefix_note()
        if note is not None:
            await self.add_note(note, "warn")

    async def on_unmount(self) -> None:
        if self._spill is not None:
            self._spill.close()
        if self._backend is not None:
            await self._backend.close()

    def _offscreen(self, rows: Iterable[tuple[str, str]] = ()) -> OffscreenRows:
        """Off-screen rows whose compressed batches are held in a temporary file (one for the
        app, in the session store's directory): the text a long chat took off screen grew
        its memory with every trim (offscreen_file)."""
        if self._spill is None:
            from .offscreen_file import ChunkFile

            store = self._backend.options.store_path if self._backend is not None else None
            self._spill = ChunkFile(store.parent if store is not None else None)
        return OffscreenRows(rows, chunks=self._spill)

    # -- helpers --------------------------------------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        from .widgets import Conversation

        return self.query_one("#conversation", Conversation)

    def _release_query_caches(self) -> None:
        """Empty the `query_one` caches of the app's screens: Textual keys each result by how
        many times the node's children changed (an LRUCache of 1024 per node), so every turn
        adds entries that are never asked for again (a long chat grew them 1.8 KB a turn, the
        second site past the mounted window in a tracemalloc diff of bench_tui_long)."""
        for node in (self, self.default_screen, *self.screen_stack):
            node._query_one_cache.clear()

    def refresh_header(self) -> None:
        # The main screen's header, also while a dialog is on top of it.
        try:
            header = self.screen_stack[0].query_one("#header", Static)
        except (NoMatches, IndexError):  # the app is closing
            return
        header.update(Text(self.header_text()))

    def refresh_panel(self) -> None:
        if self._backend is None:  # nothing to show before the backend opens
            return
        from .widgets import CachePanel

        try:
            panel = self.query_one("#cache-panel", CachePanel)
        except NoMatches:  # a tick after the screen went away
            return
        panel.show(self.backend.panel_view())

    def on_tick(self) -> None:
        """Once a second: the countdown, and a keep-alive ping when one is due and pays."""
        self.refresh_panel()
        if self.ready and not self.busy and not self._pinging and self.backend.tick_due():
            self._pinging = True
            self.run_worker(self._keepalive(), group="keepalive")

    async def _keepalive(self) -> None:
        from prefixlock.events import KeepAlivePing

        try:
            events = await self.backend.keepalive_tick()
        except PrefixlockError as exc:
            await self.add_note(f"keep-alive ping failed: {exc}", "warn")
            events = []
        finally:
            self._pinging = False
        for ev in events:
            if isinstance(ev, KeepAlivePing):
                cost = f", ${ev.cost:.4f}" if ev.cost is not None else ""
                await self.add_note(f"keep-alive ping: read {ev.read_tokens:,} tokens{cost}")
        self.refresh_panel()

    async def _mount(self, widget: Widget) -> None:
        await self.conversation.mount(widget)

    def _open_subagent(self, depth: int, name: str, run_id: str = "") -> SubagentEntry | None:
        """The open entry of the run `run_id`; for events without a run id (an older
        delegator), the latest open entry of subagent `name` at `depth`."""
        for sub in reversed(self._subagents):
            if run_id:
                if sub.run_id == run_id:
                    return sub
            elif sub.depth == depth and sub.agent_name == name:
                return sub
        return None

    async def _start_subagent(self, ev: SubagentStart, parent_run: str = "") -> SubagentEntry:
        """A new entry, inside its parent subagent's entry when there is one (so it is
        indented one level deeper per depth), else in the conversation. `parent_run` is the
        run id of the subagent whose stream carried the start (a nested run)."""
        from .widgets import SubagentEntry, delegate_line

        sub = SubagentEntry(ev.name, ev.model, ev.task, ev.depth, run_id=ev.run_id)
        parent = (
            next((s for s in reversed(self._subagents) if s.run_id == parent_run), None)
            if parent_run
            else None
        )
        if parent is None:
            parent = next((s for s in reversed(self._subagents) if s.depth == ev.depth - 1), None)
        # The `delegate` call that started this run (in the caller's own tool lines) shows the
        # run's progress on its folded line until the summary comes back.
        line = delegate_line(
            (parent.tools if parent is not None else self._tools).values(), ev.task
        )
        if line is not None:
            sub.link(line)
        if parent is not None:
            await parent.inner.mount(sub)
        else:
            await self.conversation.mount(sub)
        self._subagents.append(sub)
        return sub

    async def _finish_subagent(self, ev: SubagentFinish, parent_run: str = "") -> None:
        from prefixlock.events import SubagentStart

        from .widgets import subagent_detail

        sub = self._open_subagent(ev.depth, ev.name, ev.run_id)
        if sub is None:  # a delegator that reports only at the end
            sub = await self._start_subagent(
                SubagentStart(ev.name, ev.model, "", ev.depth, run_id=ev.run_id), parent_run
            )
        self._subagents.remove(sub)
        sub.finish(ev.summary, subagent_detail(ev), ev.error)

    async def _subagent_event(self, ev: SubagentEvent) -> None:
        """One event of a subagent's own stream, into its entry (found by its run id) as it
        happens."""
        from prefixlock.events import SubagentFinish, SubagentStart

        inner = ev.event
        if isinstance(inner, SubagentStart):
            await self._start_subagent(inner, ev.run_id)
        elif isinstance(inner, SubagentFinish):
            await self._finish_subagent(inner, ev.run_id)
        else:
            sub = self._open_subagent(ev.depth, ev.name, ev.run_id)
            if sub is None:  # its start was not seen: show the run anyway
                sub = await self._start_subagent(
                    SubagentStart(ev.name, "?", "", ev.depth, run_id=ev.run_id)
                )
            await sub.apply(inner)

    async def add_note(self, text: str, kind: str = "info") -> Note:
        from .widgets import Note

        note = Note(text, kind)
        try:
            conv = self.conversation
        except NoMatches:  # the screen is gone: the app is closing
            return note
        if conv.is_attached:  # not while the app closes (a turn cancelled by quitting)
            await conv.mount(note)
        return note

    async def load_history(self) -> None:
        """Show a resumed session's newest entries. Earlier ones are mounted a batch at a time
        as the user scrolls to the top, so a session opens as fast whatever its length."""
        self._earlier = self._offscreen(self.backend.history())
        self._earlier_line = None
        await self.show_earlier()
        self.call_after_refresh(self._fill_screen)

    async def show_earlier(self) -> None:
        """Mount the next batch of a resumed session's earlier entries above those shown,
        keeping the view on the entry it was on."""
        if not self._earlier:
            return
        from .widgets import EarlierEntries, history_entry

        batch = self._earlier.take_newest(HISTORY_BATCH)
        widgets = [history_entry(role, text) for role, text in batch]
        conv = self.conversation
        line = self._earlier_line
        if line is not None and line.parent is conv:
            was_top = conv.children[1]  # the entry just below this line
            await conv.mount_all(widgets, after=line)
            if self._earlier:
                line.update(EarlierEntries.caption(len(self._earlier)))
            else:
                await line.remove()
                self._earlier_line = None
            # Stay on the entry that was at the top rather than jump to the batch's first.
            self.call_after_refresh(conv.scroll_to_widget, was_top, top=True, animate=False)
            return
        if self._earlier:
            self._earlier_line = EarlierEntries(len(self._earlier))
            widgets.insert(0, self._earlier_line)
        await conv.mount_all(widgets, before=0 if conv.children else None)

    async def _fill_screen(self) -> None:
        """Entries too short to fill the screen leave nothing to scroll: show more at once."""
        if self._earlier and self.conversation.max_scroll_y == 0:
            await self.show_earlier()
            self.call_after_refresh(self._fill_screen)

    async def trim_conversation(self) -> None:
        """Take the oldest entries off screen once more than LIVE_LIMIT are mounted, keeping
        their text to mount again on scrolling up. Called between turns (no entry is still
        streaming); only while the view follows the end (nothing the user reads moves)."""
        from .widgets import EarlierEntries, entry_row

        conv = self.conversation
        entries = [w for w in conv.children if w is not self._earlier_line]
        if len(entries) <= LIVE_LIMIT or self._subagents:
            return
        if conv.max_scroll_y - conv.scroll_y > conv.size.height:  # reading back: not now
            return
        gone = entries[: len(entries) - LIVE_KEEP]
        if not self._earlier:  # the first trim (or the first since all came back): on disk
            self._earlier = self._offscreen()
        self._earlier.extend(entry_row(w) for w in gone)
        await conv.remove_children(gone)
        release_render_caches()
        self._release_query_caches()
        line = self._earlier_line
        if line is not None and line.parent is conv:
            line.update(EarlierEntries.caption(len(self._earlier)))
        else:
            self._earlier_line = EarlierEntries(len(self._earlier))
            await conv.mount(self._earlier_line, before=0)

    async def on_conversation_reached_top(self) -> None:  # Conversation.ReachedTop
        await self.show_earlier()

    async def on_event(self, event: events.Event) -> None:
        # A key typed before a dialog appeared, or still part of that typing, is no answer:
        # it goes to the prompt, as the user meant it (screens.FreshKeysScreen).
        if isinstance(event, (events.Key, events.Paste)):
            self._key_at = time.monotonic()
            if self._first_prompt is not None and (
                self._held
                or self._upgrading
                or not isinstance(event, events.Key)
                or not typed_here(event.key, event.character)
            ):
                # Not plain typing, or the prompt is being swapped in: the real prompt takes
                # it (and everything after it, in order), as it would have without the stand-in.
                self._held.append(event)
                self.run_worker(self.upgrade_prompt(), group="prompt")
                return
        if isinstance(event, events.Key) and not event.is_forwarded and self.screen_stack:
            # Duck-typed (a FreshKeysScreen has it): the dialogs' module loads with the first
            # dialog, not before the prompt.
            typed_ahead = getattr(self.screen_stack[-1], "typed_ahead", None)
            if typed_ahead is not None and typed_ahead(event.key, event.character, event.time):
                self._type_ahead(event)
                return
        await super().on_event(event)

    def _type_ahead(self, event: events.Key) -> None:
        """A key typed during a turn, into the prompt under the dialog: text is inserted,
        Enter queues the message (sent when the turn ends), Backspace deletes."""
        prompt = self.prompt
        if event.key == "enter":
            prompt.submit()
        elif event.key == "backspace":
            prompt.action_delete_left()
        elif event.key == "space":
            prompt.insert(" ")
        elif event.character is not None and event.character.isprintable():
            prompt.insert(event.character)

    async def ask_approval(self, request: ApprovalRequest | McpCallRequest) -> Decision:
        """A modal dialog, answered by the user: the deferred calls' question, and the
        workspace's own callback for an action that reaches it unapproved."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Decision] = loop.create_future()

        def done(result: Decision | None) -> None:
            if not answer.done():
                answer.set_result(result if result is not None else False)

        from .screens import ApprovalScreen

        screen = ApprovalScreen(request)
        self.push_screen(screen, done)
        try:
            decision = await answer
        except asyncio.CancelledError:  # the turn was cancelled: the question goes with it
            if screen.is_attached and screen is self.screen:
                self.pop_screen()
            raise
        from .approval_flow import decision_note

        await self.add_note(decision_note(request.summary, decision), "approval")
        return decision

    async def settle_approvals(self) -> None:
        """The turn stopped on tool calls that need the user (the SDK's deferred calls):
        ask about each (its diff or command), record the answers on the session, resume the
        turn; again while the resumed turn stops on more."""
        from .approval_flow import TOOL_ACTIONS, preview

        while calls := self.backend.pending_approvals():
            for call in calls:
                if call.name in self.backend.mcp_tool_names():
                    await self._settle_mcp_call(call)
                    continue
                action = TOOL_ACTIONS.get(call.name)
                if action is not None and action in self.backend.permissions.allowed:
                    self.backend.decide(call, "once")  # "always" was chosen for an earlier one
                    continue
                request = await preview(self.backend.workspace, call)
                if isinstance(request, str):
                    # It cannot succeed (outside the root, old text not found): nothing to
                    # approve; it runs and the model reads why it failed.
                    self.backend.decide(call, "once", ask_again=True)
                    continue
                if self.backend.permissions.decide(request).verdict != "ask":
                    # A setting decides it (a deny rule, an allow rule, the mode): no dialog;
                    # the workspace applies the ruling when the call runs, and says why.
                    self.backend.decide(call, "once", ask_again=True)
                    continue
                try:
                    decision = await self.ask_approval(request)
                except asyncio.CancelledError:
                    # The calls stay unanswered: the next message gives them an error result.
                    await self.add_note(
                        "turn cancelled: the waiting tool calls did not run", "warn"
                    )
                    raise
                self.backend.decide(call, decision)
            await self.stream(self.backend.resume_turn(), resumed=True)

    async def _settle_mcp_call(self, call: ToolCall) -> None:
        """An MCP tool call the session deferred: the dialog shows the server, the tool and
        the arguments, unless a setting or an earlier "always" decides it by now (the gate
        applies that ruling when the call runs)."""
        from .approval_flow import mcp_request

        if self.backend.permissions.decide_tool(call.name).verdict != "ask":
            self.backend.decide(call, "once", ask_again=True)
            return
        try:
            decision = await self.ask_approval(mcp_request(call))
        except asyncio.CancelledError:
            await self.add_note("turn cancelled: the waiting tool calls did not run", "warn")
            raise
        self.backend.decide(call, decision)

    async def attach_mentions(self, text: str) -> str:
        """The message with the content of each `@path` it mentions attached (the user
        message carries them, never the prefix); a note says what was attached. Images
        (mentioned or dropped) wait in `next_images` for the message's send."""
        from .mentions import expand_mentions

        expanded = await asyncio.to_thread(expand_mentions, text, self.backend.workspace)
        if expanded.attached:
            await self.add_note("attached: " + ", ".join(expanded.attached), "info")
        for problem in expanded.problems:
            await self.add_note(problem, "warn")
        self.next_images = expanded.images
        return expanded.message

    # -- input ----------------------------------------------------------------------------------

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        # The prompt emptied itself before posting this (PromptInput): nothing typed after the
        # Enter is glued to this message.
        if event.value.strip():
            await self.handle_line(event.value)

    async def handle_line(self, line: str) -> None:
        if line.startswith("!") and self.ready:
            # Bash mode, as in Claude Code: the command runs now, in the sandbox; its output
            # goes with the next message.
            self.run_shell(line[1:].strip())
            return
        from .commands import parse  # with the first line sent, not before the first frame

        b = self._backend
        custom = b.custom_commands if b is not None else None
        parsed = parse(line, custom or ())
        if b is not None:
            parsed = self.expand_custom(parsed)
        if not self.ready and parsed.command is None and not parsed.error:
            # Typed while the session opens: sent as soon as it is open (`_start_session`).
            self.queued.append(parsed.text)
            mcp = b is not None and b.chat_settings.mcp_servers
            starting = " and its MCP servers start" if mcp else ""
            await self.add_note(
                f"waiting while the session opens{starting}; sent then: {parsed.text}", "info"
            )
            self.refresh_header()
            return
        if not self.ready and parsed.command not in ("help", "quit"):
            await self.add_note("the session is not open yet", "warn")
            return
        if parsed.error:
            await self.add_note(parsed.error, "error")
            return
        if parsed.command is None:
            if self.busy:
                self.queued.append(parsed.text)
                await self.add_note(
                    f"queued (sent when the running turn ends; ctrl+c cancels it): {parsed.text}",
                    "info",
                )
                self.refresh_header()
                return
            self.set_busy(True)
            self.run_turn(parsed.text)
            return
        await self.run_command(parsed)

    @work(group="shell")
    async def run_shell(self, command: str) -> None:
        try:
            shown = await self.backend.shell(command)
        except PrefixlockError as exc:
            await self.add_note(f"!{command}: {exc}", "error")
            return
        await self.add_note(f"$ {command}\n{shown}\n(sent with your next message)", "info")

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.refresh_header()

    @work(exclusive=True, group="turn")
    async def run_turn(self, text: str) -> None:
        """One turn, then each message queued while it ran, in order."""
        from .widgets import UserMessage

        self.set_busy(True)
        try:
            await self.prepared.wait()
            next_text: str | None = text
            while next_text is not None:
                await self.offer_instructions(next_text)
                await self.offer_tool_changes()
                await self.conversation.mount(UserMessage(next_text))
                message = await self.attach_mentions(next_text)
                if self.delegate_next is not None:
                    model, self.delegate_next = self.delegate_next, None
                    await self.stream(self.backend.delegate(message, agent="explorer", model=model))
                else:
                    images, self.next_images = self.next_images, []
                    await self.stream(self.backend.send(message, images))
                    await self.settle_approvals()
                next_text = self.queued.pop(0) if self.queued else None
                self.refresh_header()
            # Between turns, still busy: what is typed meanwhile queues, nothing streams.
            await self.trim_conversation()
        except asyncio.CancelledError:
            if self.queued and self.is_running:
                # Cancelling one turn does not throw away what was typed after it: back into
                # the prompt, to send, edit or clear.
                prompt = self.prompt
                prompt.value = "\n".join([*self.queued, prompt.value]).strip()
                self.queued.clear()
                await self.add_note("the queued messages are back in the prompt", "info")
            raise
        finally:
            self.set_busy(False)

    async def stream(self, events: AsyncIterator[Event], *, resumed: bool = False) -> None:
        """Render a stream of events; a fault ends as a message, the session goes on. The
        caller marks the app busy around it. `resumed`: the turn continues after approvals,
        so the results of the calls already on screen go to their lines."""
        self._assistant = None
        self._attempt_text = []
        if not resumed:
            self._tools = {}  # this stream's calls (a cancelled turn's never get their result)
        try:
            async for ev in events:
                await self.on_session_event(ev)
        except PrefixlockError as exc:
            self.last_error = str(exc)
            await self.add_note(f"provider error: {exc} (the session continues)", "error")
        except asyncio.CancelledError:
            await self.add_note("turn cancelled", "warn")
            raise
        finally:
            if self._assistant is not None:
                await self._assistant.finish()
            self._assistant = None
            self._subagents.clear()
            self.refresh_panel()

    async def on_session_event(self, ev: Event) -> None:
        from prefixlock import events as E  # one name per event, not fourteen

        from .widgets import AssistantMessage, ToolEntry

        self.backend.observe(ev)
        if isinstance(ev, E.TextDelta):
            if self._assistant is None:
                self._assistant = AssistantMessage()
                self._attempt_text.append(self._assistant)
                await self._mount(self._assistant)
            await self._assistant.add(ev.text)
            return
        if self._assistant is not None and not isinstance(ev, E.UsageReport):
            await self._assistant.finish()
            self._assistant = None
        if isinstance(ev, E.ToolCall):
            entry = ToolEntry(ev.id, ev.name, ev.input)
            self._tools[ev.id] = entry
            await self._mount(entry)
        elif isinstance(ev, E.ToolResult):
            found = self._tools.get(ev.id)
            if found is None:
                found = ToolEntry(ev.id, ev.name, {})
                await self._mount(found)
            found.set_result(ev.content, ev.is_error)
        elif isinstance(ev, E.SubagentStart):
            await self._start_subagent(ev)
        elif isinstance(ev, E.SubagentFinish):
            await self._finish_subagent(ev)
        elif isinstance(ev, E.SubagentEvent):
            await self._subagent_event(ev)
            return  # its usage is the subagent's, not the panel's (SubagentFinish counts it)
        elif isinstance(ev, E.UsageReport):
            self._attempt_text = []  # that request's text is final
            self.refresh_panel()
        elif isinstance(ev, E.CacheBreak):
            cost = f", ${ev.dollars:.4f}" if ev.dollars is not None else ""
            await self.add_note(
                f"cache miss: {ev.cause}: {ev.tokens_rebilled:,} tokens re-billed{cost}"
                + (f" ({ev.detail})" if ev.detail else ""),
                "miss",
            )
        elif isinstance(ev, E.ProviderFault):
            state = "retrying" if ev.retrying else "gave up"
            status = f" {ev.status}" if ev.status else ""
            dropped = ""
            if ev.retrying and self._attempt_text:
                # The retry streams the whole answer again: left on screen, the partial text
                # would read as a second, truncated copy of it.
                for partial in self._attempt_text:
                    await partial.remove()
                dropped = "; its partial answer was discarded"
            self._attempt_text = []
            await self.add_note(
                f"provider fault{status}: {ev.message} (attempt {ev.attempt}, {state}{dropped})",
                "error",
            )
        elif isinstance(ev, E.KeepAlivePing):
            await self.add_note(f"keep-alive ping: read {ev.read_tokens:,} tokens", "info")
        elif isinstance(ev, E.PrefixChanged):
            self.refresh_header()
            await self.add_note(f"new prefix ({ev.reason}) on {ev.model}", "info")
        elif isinstance(ev, E.SwitchWarning):
            await self.add_note(f"priced action: {ev.action}", "warn")
        elif isinstance(ev, E.StoreWriteFailed):  # one per failure: the recorder says it once
            await self.add_note(ev.message, "error")
        elif isinstance(ev, E.TurnComplete) and ev.limit_hit:
            await self.add_note(f"turn stopped: {ev.limit_hit} limit reached", "warn")
        self.refresh_panel()

    # -- commands -------------------------------------------------------------------------------

    async def run_command(self, p: Parsed) -> None:
        handler = getattr(self, f"cmd_{p.command}", None)
        if handler is None:  # pragma: no cover - parse() only returns known commands
            await self.add_note(f"/{p.command} is not available", "error")
            return
        try:
            await handler(p.args)
        except PrefixlockError as exc:
            await self.add_note(f"/{p.command}: {exc}", "error")

    async def cmd_help(self, args: tuple[str, ...]) -> None:
        from .screens import HelpScreen

        await self.push_screen(HelpScreen(self._backend.custom_commands if self._backend else None))

    async def cmd_quit(self, args: tuple[str, ...]) -> None:
        self.exit()

    async def cmd_clear(self, args: tuple[str, ...]) -> None:
        await self.action_clear()

    async def cmd_allow(self, args: tuple[str, ...]) -> None:
        self.backend.allow("write" if args[0] == "write" else "run")
        await self.add_note(f"{args[0]} allowed for the rest of this session", "info")

    async def cmd_cost(self, args: tuple[str, ...]) -> None:
        await self.add_note(self.backend.cost_text(), "info")

    async def cmd_keepalive(self, args: tuple[str, ...]) -> None:
        on_ = (not self.backend.keepalive) if not args else args[0] == "on"
        msg = await self.backend.set_keepalive(on_)
        await self.add_note(msg, "info")
        self.refresh_panel()

    async def cmd_sessions(self, args: tuple[str, ...]) -> None:
        await self.add_note(self.backend.sessions_text(), "info")

    async def cmd_resume(self, args: tuple[str, ...]) -> None:
        if self.busy:
            await self.add_note("wait for the running turn to finish", "warn")
            return
        await self.backend.resume(args[0])
        await self.action_clear()
        self.refresh_header()
        self.own_heap()
        await self.load_history()
        await self.add_note(f"resumed session {self.backend.session_id}", "info")
        await self.note_resumed_prefix()
        self.refresh_panel()

    async def cmd_new(self, args: tuple[str, ...]) -> None:
        if self.busy:
            await self.add_note("wait for the running turn to finish", "warn")
            return
        previous = self.backend.session_id
        await self.backend.new_session()
        await self.action_clear()
        self.refresh_header()
        await self.add_note(
            f"new session {self.backend.session_id} on the same prefix (its first request reads "
            f"the cache); /resume {previous} goes back",
            "info",
        )
        self.refresh_panel()

    async def cmd_lint(self, args: tuple[str, ...]) -> None:
        await self.add_note(self.backend.lint_text(), "info")

    async def cmd_agents(self, args: tuple[str, ...]) -> None:
        if not args:
            await self.add_note(self.backend.agents_text(), "info")
            return
        if len(args) < 2:
            await self.add_note("usage: /agents NAME TASK", "error")
            return
        if self.busy:
            await self.add_note("a turn is running; wait for it", "warn")
            return
        self.set_busy(True)
        self.run_delegate(args[0], " ".join(args[1:]))

    @work(exclusive=True, group="turn")
    async def run_delegate(self, agent: str, task: str) -> None:
        from .widgets import UserMessage

        self.set_busy(True)
        try:
            await self.prepared.wait()
            await self.conversation.mount(UserMessage(f"/agents {agent} {task}"))
            await self.stream(self.backend.delegate(task, agent=agent, model=None))
        finally:
            self.set_busy(False)

    async def cmd_model(self, args: tuple[str, ...]) -> None:
        if not args:
            self.pick_model()
            return
        self.choose_switch(args[0])

    @work(group="dialog")
    async def pick_model(self) -> None:
        """The model picker (prices, warm caches, what a switch re-bills); the model chosen
        goes through the priced switch."""
        from .model_picker import ModelPickerScreen

        try:
            rows = self.backend.model_rows()
        except PrefixlockError as exc:
            await self.add_note(f"/model: {exc}", "error")
            return
        choice = await self.push_screen_wait(ModelPickerScreen(rows))
        if choice is None or choice == self.backend.model:
            await self.add_note(f"kept {self.backend.model}", "info")
            return
        self.choose_switch(choice)

    @work(exclusive=True, group="dialog")
    async def choose_switch(self, target: str) -> None:
        try:
            quote = self.backend.quote_switch(target)
        except PrefixlockError as exc:
            await self.add_note(f"/model: {exc}", "error")
            return
        from prefixlock.cache.defaults import model_min_tokens

        from .quotes import quote_rows
        from .screens import SwitchScreen

        rows = quote_rows(quote, model_min_tokens(self.backend.prices.lookup(target)))
        if not rows.warns:
            await self.backend.switch_model(target, quote)
            self.refresh_header()
            await self.add_note(
                f"switched to {self.backend.model}: the cache was cold, nothing extra to pay",
                "info",
            )
            self.refresh_panel()
            return
        choice = await self.push_screen_wait(SwitchScreen(self.backend.model, target, rows))
        if choice == "switch":
            await self.backend.switch_model(target, quote)
            self.refresh_header()
            await self.add_note(f"switched to {self.backend.model}", "warn")
        elif choice == "delegate":
            self.delegate_next = target
            await self.add_note(
                f"the next task runs in a subagent on {target}; this session stays on "
                f"{self.backend.model} and its cache stays warm",
                "info",
            )
        else:
            await self.add_note(f"kept {self.backend.model}", "info")
        self.refresh_panel()

    async def cmd_compact(self, args: tuple[str, ...]) -> None:
        self.choose_compact()

    @work(exclusive=True, group="dialog")
    async def choose_compact(self) -> None:
        try:
            quote = self.backend.quote_compact()
        except PrefixlockError as exc:
            await self.add_note(f"/compact: {exc}", "error")
            return
        from .quotes import quote_rows
        from .screens import ConfirmScreen

        ok = await self.push_screen_wait(ConfirmScreen("Compact the history?", quote_rows(quote)))
        if not ok:
            await self.add_note("compaction cancelled", "info")
            return
        self.busy = True
        try:
            msg = await self.backend.compact(quote)
        except PrefixlockError as exc:
            msg = f"/compact failed: {exc}"
        finally:
            self.busy = False
        await self.add_note(msg, "info")
        self.refresh_header()
        self.refresh_panel()

    # -- actions --------------------------------------------------------------------------------

    async def action_help(self) -> None:
        from .screens import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            custom = self._backend.custom_commands if self._backend else None
            await self.push_screen(HelpScreen(custom))

    async def action_model(self) -> None:
        """Ctrl+O: the model picker (once the session is open)."""
        await self.handle_line("/model")

    def action_toggle_tools(self) -> None:
        from textual.widgets import Collapsible

        from .widgets import ToolEntry

        entries = list(self.query(ToolEntry))
        if not entries:
            return
        expand = any(e.collapsed for e in entries)
        for e in entries:
            # Without the Collapsible's watcher, which scrolls each entry into view (animated,
            # releasing the view's anchor): a view that was following new output went on
            # following none. The view stays where it was; at the end, it stays there.
            e.set_reactive(Collapsible.collapsed, not expand)
            e._update_collapsed(not expand)
            e.refresh(layout=True)

    def action_page_conversation(self, direction: int) -> None:
        if direction < 0:
            self.conversation.scroll_page_up(animate=False)
        else:
            self.conversation.scroll_page_down(animate=False)

    async def action_clear(self) -> None:
        self._earlier.clear()  # cleared history does not come back by scrolling up
        await self.conversation.remove_children()
        release_render_caches()
        self._release_query_caches()

    async def action_external_editor(self) -> None:
        """Edit the prompt in $VISUAL / $EDITOR (the app suspended while it runs)."""
        from textual.app import SuspendNotSupported

        from .external_editor import edit_text

        prompt = self.prompt
        try:
            try:
                with self.suspend():
                    edited = edit_text(prompt.value)
            except SuspendNotSupported:  # no terminal to hand over (a test's headless app)
                edited = edit_text(prompt.value)
        except PrefixlockError as exc:
            await self.add_note(str(exc), "error")
            return
        if edited is None:
            await self.add_note("the editor failed: the prompt is unchanged", "warn")
            return
        prompt.value = edited
        prompt.focus()

    async def action_keepalive(self) -> None:
        if not self.opened:
            await self.add_note("the session is not open yet", "warn")
            return
        await self.cmd_keepalive(())

    def action_theme_toggle(self) -> None:
        self.theme = "textual-light" if self.theme != "textual-light" else "textual-dark"
        from .widgets import AssistantMessage

        for msg in self.query(AssistantMessage):
            msg.set_text(msg.text)  # code blocks switch to the theme's highlighting

    async def action_cancel_turn(self) -> None:
        if self.busy:
            self.workers.cancel_group(self, "turn")

    async def action_interrupt(self) -> None:
        """Ctrl+C: cancel the running turn; otherwise copy the prompt's selection, or say
        how to quit (Textual's own ctrl+c)."""
        if self.busy:
            await self.action_cancel_turn()
            return
        from textual.widgets import TextArea

        prompt = self.focused
        if isinstance(prompt, TextArea) and not prompt.selection.is_empty:
            prompt.action_copy()
            return
        self.action_help_quit()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from .commands import COMMANDS

        yield from super().get_system_commands(screen)
        for c in COMMANDS:
            if c.args and c.name not in ("model", "agents", "keepalive"):
                continue  # commands that need an argument are typed, not picked
            yield SystemCommand(f"/{c.name}", c.help, lambda name=c.name: self._palette(f"/{name}"))

    def _palette(self, line: str) -> None:
        self.run_worker(self.handle_line(line), group="palette")

    def expand_all_tools(self) -> None:
        from textual.widgets import Collapsible

        for e in self.query(Collapsible):
            e.collapsed = False


def default_workspace() -> Path:
    return Path.cwd()
