"""The chat's project commands: /undo, /init, /permissions, /effort, custom commands, and the
offer of edited instruction files (a priced prefix change the user accepts or declines).

A base class of `ChatApp` (which supplies `backend`, `add_note` and the screens), so the app
module keeps only the wiring; the work itself is in the backend and the pure modules
(`undo`, `init_file`, `permissions`, `settings`, `custom_commands`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from prefixlock.errors import PrefixlockError

if TYPE_CHECKING:
    from prefixlock.coding.settings_files import PermissionMode

    from .backend import ChatBackend
    from .commands import Parsed
    from .widgets import Note


class ProjectCommands(App[None]):
    """Commands that act on the project and its settings (see the module docstring)."""

    backend: ChatBackend

    async def add_note(self, text: str, kind: str = "info") -> Note:
        raise NotImplementedError  # ChatApp's

    def refresh_panel(self) -> None:
        raise NotImplementedError  # ChatApp's

    # -- custom commands ------------------------------------------------------------------------

    def expand_custom(self, parsed: Parsed) -> Parsed:
        """A custom command becomes the message its file says (`$ARGUMENTS` filled in);
        anything else is returned as it is."""
        custom = self.backend.custom_commands or {}
        if parsed.command is None or parsed.command not in custom or parsed.error:
            return parsed
        from prefixlock.coding.custom_commands import expand_line

        from .commands import Parsed

        text = expand_line(parsed.text, custom)
        return parsed if text is None else Parsed(None, text=text)

    async def note_setting(self, text: str) -> None:
        """A write or command a setting decided without asking: said, never silent."""
        await self.add_note(text, "approval")

    # -- instruction files ----------------------------------------------------------------------

    async def offer_instructions(self, next_message: str) -> None:
        """Before a message goes out: if AGENTS.md / CLAUDE.md / CONVENTIONS.md changed since
        the prefix was made, show the guard's price of moving to the new version and move
        only if the user says yes (a declined version is not offered again)."""
        try:
            change = self.backend.instructions_change(next_message)
        except PrefixlockError as exc:
            await self.add_note(f"instruction files: {exc}", "error")
            return
        if change is None:
            return
        fresh, prefix, quote = change
        from prefixlock.coding.instructions import changed_instruction_files

        from .quotes import change_rows
        from .screens import ConfirmScreen

        names = ", ".join(changed_instruction_files(self.backend.instructions, fresh))
        ok = await self.push_screen_wait(
            ConfirmScreen(
                f"{names} changed: put the new version in the prefix?", change_rows(quote, names)
            )
        )
        if ok:
            self.backend.apply_instructions(fresh, prefix, quote)
            await self.add_note(f"the prefix now holds the new {names}", "warn")
        else:
            self.backend.decline_instructions(fresh)
            await self.add_note(
                f"kept the instructions the session started with; the edit to {names} is not "
                "in the prefix (it is offered again if the file changes again)",
                "info",
            )
        self.refresh_panel()

    async def offer_tool_changes(self) -> None:
        """Before a message goes out: an MCP server that announced a new tool list is offered
        like an edited instruction file, with the guard's price; moved only on a yes."""
        try:
            changes = await self.backend.tool_list_changes()
        except Exception as exc:  # a server that died or answers nonsense: said, not fatal
            await self.add_note(f"MCP tools: {type(exc).__name__}: {exc}", "error")
            return
        from .quotes import change_rows
        from .screens import ConfirmScreen

        for change in changes:
            what = change.describe()
            ok = await self.push_screen_wait(
                ConfirmScreen(
                    "An MCP server changed its tools: put the new list in the prefix?",
                    change_rows(change.quote, what),
                )
            )
            if ok:
                self.backend.apply_tool_change(change)
                await self.add_note(f"the prefix now holds the new MCP tools ({what})", "warn")
            else:
                await self.add_note(
                    f"kept the MCP tools the session started with ({what} not taken; offered "
                    "again if the server changes its list again)",
                    "info",
                )
        if changes:
            self.refresh_panel()

    # -- commands -------------------------------------------------------------------------------

    async def cmd_undo(self, args: tuple[str, ...]) -> None:
        if getattr(self, "busy", False):
            await self.add_note("wait for the running turn to finish", "warn")
            return
        text = self.backend.undo_last(force=args == ("force",))
        await self.add_note(text, "warn")

    async def cmd_permissions(self, args: tuple[str, ...]) -> None:
        from prefixlock.coding.settings_files import MODES

        if args:
            mode: PermissionMode = next(m for m in MODES if m == args[0])
            self.backend.permissions.mode = mode
            await self.add_note(f"permission mode: {mode} (for this session)", "warn")
            return
        await self.add_note(self.backend.permissions_text(), "info")

    async def cmd_effort(self, args: tuple[str, ...]) -> None:
        from prefixlock.coding.settings_files import EFFORTS

        if not args:
            current = self.backend.session.state.settings.effort or "the model's default"
            await self.add_note(
                f"effort: {current}; /effort {'|'.join(EFFORTS)}|default changes it "
                "(priced first: it changes what the provider caches)",
                "info",
            )
            return
        self.choose_effort(None if args[0] == "default" else args[0])

    @work(exclusive=True, group="dialog")
    async def choose_effort(self, effort: str | None) -> None:
        try:
            quote = self.backend.quote_effort(effort)
        except PrefixlockError as exc:
            await self.add_note(f"/effort: {exc}", "error")
            return
        from .quotes import quote_rows
        from .screens import ConfirmScreen

        rows = quote_rows(quote)
        shown = effort or "default"
        if rows.warns and not await self.push_screen_wait(
            ConfirmScreen(f"Change effort to {shown}?", rows)
        ):
            await self.add_note("effort unchanged", "info")
            return
        self.backend.change_effort(effort, quote)
        cold = "" if rows.warns else " (the cache was cold: nothing extra to pay)"
        await self.add_note(f"effort: {shown}{cold}", "warn")
        self.refresh_panel()

    async def cmd_init(self, args: tuple[str, ...]) -> None:
        self.write_agents_md()

    @work(exclusive=True, group="dialog")
    async def write_agents_md(self) -> None:
        """Draft AGENTS.md, show it, write it on yes; an existing one needs a second yes."""
        from .init_file import draft_agents_md
        from .preview import PreviewScreen

        root = self.backend.workspace.root
        path = root / "AGENTS.md"
        text = draft_agents_md(root)
        if not await self.push_screen_wait(PreviewScreen("Write this AGENTS.md?", text)):
            await self.add_note("/init: nothing written", "info")
            return
        if path.exists() and not await self.push_screen_wait(
            PreviewScreen(
                "AGENTS.md already exists: overwrite it? (/undo puts it back)",
                _read_text(path),
                yes="Overwrite (y)",
            )
        ):
            await self.add_note("/init: AGENTS.md kept as it was", "info")
            return
        journal = self.backend.undo
        journal.begin("/init")
        try:
            journal.before_write("AGENTS.md")
            _write_atomic(path, text.encode("utf-8"))
        except OSError as exc:
            await self.add_note(f"/init: cannot write AGENTS.md: {exc}", "error")
            return
        finally:
            journal.end()
        await self.add_note(
            "wrote AGENTS.md; the session's prefix keeps the instructions it started with "
            "until you accept the change (offered, priced, with your next message)",
            "info",
        )


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(cannot read it: {exc.strerror})"


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
