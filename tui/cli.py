"""`prefixlock chat`: open the coding assistant (on the emulator when no API key is set)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from prefixlock.cli.command import Command, add_fork_wait_flags, add_sandbox_flags

if TYPE_CHECKING:  # typing only: the backend's imports are heavy, `prefixlock --help` stays fast
    from pathlib import Path

    from prefixlock.coding.settings_files import ChatSettings

    from .backend import BackendOptions, ChatBackend


def _configure(p: argparse.ArgumentParser) -> None:
    from pathlib import Path

    p.add_argument(
        "--model",
        default=None,
        help="model id (default claude-sonnet-4-6); with --resume, offered as a priced switch "
        "from the stored session's model",
    )
    p.add_argument(
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        default=None,
        help="resume a stored session (without ID: pick one from a list, this workspace's first)",
    )
    p.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the newest session started in this workspace (as `claude --continue`)",
    )
    add_fork_wait_flags(p, "chat")
    p.add_argument(
        "--workspace", type=Path, default=None, help="workspace root (default: current directory)"
    )
    p.add_argument(
        "--store",
        type=Path,
        default=None,
        help="session store (default: $PREFIXLOCK_STORE, else prefixlock/sessions.sqlite under "
        "$XDG_DATA_HOME or ~/.local/share)",
    )
    p.add_argument(
        "--allow",
        action="append",
        choices=("write", "run", "mcp"),
        default=[],
        help="do not ask before writes / commands / MCP tool calls (repeatable; deny rules "
        "and plan mode still hold)",
    )
    add_sandbox_flags(p, default=None)
    p.add_argument(
        "--trust-hooks",
        action="store_true",
        help="run the hooks of the workspace's own .claude settings without asking (they run "
        "on this machine, outside the sandbox: without this flag the chat asks first); the "
        "hooks of ~/.claude/settings.json always run",
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="API base URL (an OpenAI-compatible server: openai-compat:MODEL)",
    )
    p.add_argument(
        "--offline", action="store_true", help="use the built-in emulator even if a key is set"
    )


def _run(args: argparse.Namespace) -> int:
    # Heavy imports in _open_chat so `prefixlock --help` stays fast.
    import gc
    from pathlib import Path

    from prefixlock.errors import UserError

    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise UserError("not a directory", where=f"--workspace {args.workspace}")
    if args.continue_ or args.resume == "":
        args.resume = _chosen_session(args, workspace)
        if args.resume is None:
            return 0  # left the picker without choosing: nothing to open
    if args.base_url is not None and not _is_http_url(args.base_url):
        raise UserError(
            f"not an http(s) URL: {args.base_url!r} (e.g. http://localhost:8000/v1)",
            where="--base-url",
        )
    # The cyclic collector pauses until the first frame is drawn and its keys echoed: Textual
    # loads ~60,000 objects that live as long as the process, and the collector's passes over
    # them were ~7% of the CPU time to that frame. The app freezes what is loaded behind that
    # frame (its idle gate, `ChatApp.own_heap`; ~1,200 garbage objects, ~110 KB, are frozen
    # with it) and turns the collector back on there; here, whatever way the app ends.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _open_chat(args, workspace)
    finally:
        if paused:
            gc.enable()


def _open_chat(args: argparse.Namespace, workspace: Path) -> int:
    """The chat's screen, until it closes."""
    import sys

    from .app import START_GATE, ChatApp, Opener

    def open_backend() -> ChatBackend:
        return _open_backend(args, workspace)

    fresh = args.resume is None and args.wait is None and not args.fork
    if fresh and sys.stdin.isatty() and sys.stderr.isatty():  # Textual draws on stderr
        # A new session in a terminal: the prompt draws first and the backend (the SDK's
        # imports, the settings and their checks) opens behind it; a user error closes the
        # screen and is said below, as it is before the screen otherwise.
        app = ChatApp(
            opener=Opener(workspace, open_backend), freeze_heap=True, idle_gate=START_GATE
        )
    else:
        # A resumed session is checked (and waited for, said on the terminal) before the
        # screen; off a terminal there is no first frame to hurry.
        app = ChatApp(open_backend(), freeze_heap=True, idle_gate=START_GATE)
    app.run()
    if app.open_error is not None:
        raise app.open_error
    return 0


def _open_backend(args: argparse.Namespace, workspace: Path) -> ChatBackend:
    """The chat's backend, checked: unknown model, unknown session, a session open elsewhere
    (waited for with --wait), a bad settings file are each a UserError naming the flag or
    file (one line and exit 2)."""
    from pathlib import Path

    from prefixlock.coding.settings_files import load_settings
    from prefixlock.errors import UnknownModelError
    from prefixlock.store.waiting import wait_seconds

    from .backend import make_backend

    wait = wait_seconds(args.wait, resume=args.resume, fork=args.fork)
    # Settings files (user and project level): a bad one is one line naming it, exit 2.
    chat_settings = load_settings(workspace, Path.home())
    backend = make_backend(backend_options(args, workspace, chat_settings, wait))
    try:
        backend.check()
    except UnknownModelError as exc:
        if args.model is None and chat_settings.model is not None:
            raise exc.at(f"{chat_settings.model_source}: model") from None
        raise
    return backend


def backend_options(
    args: argparse.Namespace,
    workspace: Path,
    chat_settings: ChatSettings | None = None,
    wait: float = 0.0,
) -> BackendOptions:
    """The backend's options from the parsed command line (which wins) and the settings."""
    from pathlib import Path

    from prefixlock.coding.settings_files import sandbox_options
    from prefixlock.settings import Settings

    from .backend import DEFAULT_MODEL, BackendOptions, default_store_path

    cs = chat_settings
    return BackendOptions(
        model=args.model or (cs.model if cs else None) or DEFAULT_MODEL,
        workspace=workspace,
        store_path=args.store or default_store_path(),
        resume=args.resume,
        fork=args.fork,
        wait=wait,
        # A resumed session keeps its stored model: --model becomes the offer of a priced
        # switch, made once the session is open (see ChatApp.on_mount).
        switch_to=args.model if args.resume else None,
        api_key="" if args.offline else None,
        base_url=None if args.offline else args.base_url,
        allow=tuple(args.allow),
        sandbox=sandbox_options(cs, args.sandbox, args.no_network),
        settings=Settings(effort=cs.effort) if cs is not None and cs.effort else None,
        chat_settings=cs,
        user_dir=Path.home() if cs is not None else None,
        trust_hooks=args.trust_hooks,
    )


def _chosen_session(args: argparse.Namespace, workspace: Path) -> str | None:
    """`--continue`: the newest session of `workspace`; `--resume` alone: the one picked in
    the list (None: the user left it). No stored session: one line, exit 2."""
    from prefixlock.coding.recent_sessions import stored
    from prefixlock.errors import UserError

    from .backend import default_store_path
    from .session_picker import SessionPickerApp, picker_rows

    flag = "--continue" if args.continue_ else "--resume"
    if args.continue_ and args.resume is not None:
        raise UserError("give --resume [ID] or --continue, not both", where="--continue")
    store = args.store or default_store_path()
    rows = picker_rows(*stored(store, workspace))
    if args.continue_:
        rows = [r for r in rows if r.here]
    if not rows:
        here = f" of {workspace}" if args.continue_ else ""
        raise UserError(f"no stored session{here} in {store}", where=flag)
    if args.continue_:
        return rows[0].id
    chosen: str | None = SessionPickerApp(rows).run()
    return chosen


def _is_http_url(value: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


COMMAND = Command(
    help="open the coding assistant (TUI); offline on the emulator without a key",
    configure=_configure,
    run=_run,
    order=20,
)
