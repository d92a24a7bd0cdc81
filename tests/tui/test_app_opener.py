"""`prefixlock chat` in a terminal draws its prompt before the SDK is imported: the app module
loads Textual and the chat's own widgets only, and the backend (the SDK's imports, the settings
files, their checks) is made in a thread behind the first frame (`ChatApp(opener=...)`). Keys
typed meanwhile are kept, a message waits for the session, and a user error the checks find
closes the screen and is said as one line with exit code 2, as it is before the screen
otherwise."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from prefixlock.errors import UnknownModelError
from prefixlock.tui.app import START_GATE, ChatApp, IdleGate, Opener
from prefixlock.tui.backend import ChatBackend
from prefixlock.tui.first_prompt import FirstPrompt
from prefixlock.tui.prompt_input import CompletionList, PromptInput
from prefixlock.tui.widgets import UserMessage
from tests.helpers.backend_drive import OptionsFactory, last_user_text
from tests.helpers.tmux import KEY_VARS, Tmux, exe
from tests.helpers.tui_drive import conversation_text, settle, type_keys, until

# What the first frame must not wait for: the SDK's modules and the libraries under them.
HEAVY = (
    "prefixlock.tui.backend",
    "prefixlock.events",
    "prefixlock.store",
    "prefixlock.providers",
    "prefixlock.coding",
    "prefixlock.agent",
    "prefixlock.session",
    "anthropic",
    "openai",
    "httpx",
    "pydantic",
    "yaml",
    # The chat's own dialogs and figures load with the first dialog or the first figures.
    "prefixlock.tui.screens",
    "prefixlock.tui.quotes",
    "prefixlock.tui.state",
    "prefixlock.billing",
    "prefixlock.canonical",
    # The slash commands' table and parser: with the first line sent, or the palette.
    "prefixlock.tui.commands",
    # The prompt (a TextArea) takes the stand-in's place behind the first frame.
    "prefixlock.tui.prompt_input",
    "textual.widgets._text_area",
    # The conversation's entries and the cache panel come with it, behind the first frame.
    "prefixlock.tui.widgets",
    "textual.widgets._collapsible",
)


def test_the_chat_module_and_command_import_nothing_of_the_sdk() -> None:
    code = (
        "import json, sys\n"
        "import prefixlock.cli.main, prefixlock.tui.cli, prefixlock.tui.app\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
    assert "textual.app" in loaded


# `prefixlock chat` in a terminal, up to the moment its app would draw the first frame: a pty
# stands in for the terminal (so the chat takes its first-frame path) and `ChatApp.run` reports
# what is loaded and whether the cyclic collector runs, instead of drawing.
FIRST_FRAME = """
import gc, json, os, sys
master, slave = os.openpty()
sys.stdin = os.fdopen(slave, "r")
sys.stderr = os.fdopen(os.dup(slave), "w")
import prefixlock.cli.main
import prefixlock.tui.app as app
seen = {}
def run(self, *args, **kwargs):
    seen["collector"] = gc.isenabled()
    seen["modules"] = sorted(sys.modules)
app.ChatApp.run = run
code = prefixlock.cli.main.main(["chat", "--workspace", sys.argv[1], "--store", sys.argv[2]])
seen["code"], seen["after"] = code, gc.isenabled()
print(json.dumps(seen))
"""


def test_the_first_frame_comes_before_the_sdk_with_the_collector_paused(tmp_path: Path) -> None:
    """What `prefixlock chat` has loaded when its first frame draws: Textual and the chat's
    first-frame modules, nothing of HEAVY (the opener imports those behind the frame); and the
    cyclic collector is off until then (its passes over Textual's objects were ~7% of the CPU
    time to that frame), on again once the command returns."""
    args = [str(tmp_path), str(tmp_path / "s.sqlite")]
    out = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME, *args], capture_output=True, text=True, check=True
    )
    seen = json.loads(out.stdout)
    heavy = [m for m in seen["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
    assert "prefixlock.tui.first_prompt" in seen["modules"]
    assert seen["collector"] is False
    assert seen["code"] == 0 and seen["after"] is True


async def test_the_chat_that_owns_its_process_turns_the_collector_on_behind_the_first_frame(
    chat_options: OptionsFactory,
) -> None:
    """`prefixlock chat` pauses the collector until its first frame (above): the app turns it
    on again once the idle gate opens, Textual's objects frozen out of its passes, before the
    SDK loads; an app embedded in another program leaves that program's collector alone."""
    import gc

    options = chat_options()
    frozen_by_the_run = gc.get_freeze_count() > 0  # tests/conftest.py freezes after collection
    gc.unfreeze()
    gc.disable()
    try:
        embedded = ChatApp(opener=Opener(options.workspace, lambda: ChatBackend(options)))
        async with embedded.run_test(size=(120, 40)) as pilot:
            await until(lambda: embedded.ready, "the session to open")
            await pilot.pause()
            assert not gc.isenabled() and gc.get_freeze_count() == 0
        opened_with: list[bool] = []

        def open_backend() -> ChatBackend:  # the SDK's imports, behind the gate
            opened_with.append(gc.isenabled())
            return ChatBackend(options)

        def owner(gate: IdleGate) -> ChatApp:
            opener = Opener(options.workspace, open_backend)
            return ChatApp(opener=opener, freeze_heap=True, idle_gate=gate, blink=False)

        closed = owner(IdleGate(quiet=30.0, latest=30.0))  # the gate never opens here
        async with closed.run_test(size=(120, 40)) as pilot:
            await type_keys(pilot, *"hi")  # the first frame, its keys echoed: still paused
            assert closed.query_one("#first-prompt", FirstPrompt).value == "hi"
            assert not gc.isenabled() and gc.get_freeze_count() == 0
        opening = owner(IdleGate())  # opens at once
        async with opening.run_test(size=(120, 40)):
            await until(lambda: opening.ready, "the session to open")
            assert opened_with == [True]
            assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()
        if frozen_by_the_run:
            gc.freeze()


async def test_keys_and_a_message_before_the_backend_exists(chat_options: OptionsFactory) -> None:
    release = threading.Event()
    options = chat_options()

    def open_backend() -> ChatBackend:  # stands in for the SDK's imports on a slow machine
        release.wait(30)
        return ChatBackend(options)

    app = ChatApp(opener=Opener(options.workspace, open_backend), blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: bool(app.query("#prompt")), "the prompt behind the first frame")
        prompt = app.query_one("#prompt", PromptInput)
        await until(lambda: prompt.has_focus, "the prompt to take the focus")
        # The first frame parsed first.tcss alone; app.tcss came with the real prompt and
        # styles what came with it.
        assert [p.name for p in app.css_path] == ["first.tcss", "app.tcss"]
        assert str(app.query_one("#cache-panel").styles.width) == "28"
        assert app.query_one("#input-area").styles.dock == "bottom"
        assert not app.opened
        assert "opening…" in str(app.query_one("#header").render())
        await type_keys(pilot, *"hello")
        assert prompt.value == "hello"
        await pilot.press("enter")
        await until(lambda: bool(app.queued), "the message to wait")
        assert "waiting while the session opens; sent then: hello" in conversation_text(app)
        await pilot.press("f2")  # needs the backend: said, not a crash
        await until(lambda: "the session is not open yet" in conversation_text(app), "the refusal")
        release.set()
        await until(lambda: app.ready, "the session to open")
        await settle(app, pilot)
        assert [str(u.render()) for u in app.query(UserMessage)] == ["› hello"]
        assert last_user_text(app.backend) == "hello"
        assert "EMULATOR" in str(app.query_one("#header").render())
        # The footer came after the first frame, its keys drawn.
        await until(lambda: bool(app.query("FooterKey")), "the footer's keys")


async def test_a_user_error_of_the_checks_closes_the_screen_with_exit_code_2(
    tmp_path: Path,
) -> None:
    def open_backend() -> ChatBackend:
        raise UnknownModelError("unknown model 'claude-opsu-9'", where="--model")

    app = ChatApp(opener=Opener(tmp_path, open_backend), blink=False)
    async with app.run_test(size=(120, 40)):
        await until(lambda: not app.is_running, "the app to close")
    assert isinstance(app.open_error, UnknownModelError)
    assert app.return_code == 2


def test_the_idle_gate_waits_for_a_pause_in_typing_and_no_longer_than_its_bound() -> None:
    gate = IdleGate(quiet=0.1, latest=0.5)
    assert gate.wait(0.0, None) == pytest.approx(0.1)  # the frame just drawn: a pause first
    assert gate.wait(0.1, None) == 0.0  # no key for a tenth of a second: open
    assert gate.wait(0.2, 0.02) == pytest.approx(0.08)  # a key 20 ms ago: 80 ms more
    assert gate.wait(0.45, 0.0) == pytest.approx(0.05)  # still typing: until the bound
    assert gate.wait(0.5, 0.0) == 0.0  # typing on: opens at the bound anyway
    assert IdleGate().wait(0.0, None) == 0.0  # the default opens at once
    assert START_GATE.latest <= 0.5  # the session is never held back long


async def test_the_session_waits_for_the_gate_while_keys_echo(chat_options: OptionsFactory) -> None:
    options = chat_options()
    opened: list[bool] = []

    def open_backend() -> ChatBackend:
        opened.append(True)
        return ChatBackend(options)

    gate = IdleGate(quiet=30.0, latest=30.0)  # never reached in this test
    app = ChatApp(opener=Opener(options.workspace, open_backend), blink=False, idle_gate=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"hi")
        await pilot.pause()
        # The first frame's stand-in took the keys; the TextArea prompt is not made yet.
        assert app.query_one("#first-prompt", FirstPrompt).value == "hi"
        assert not app.query("#prompt")
        # Nothing of the session has started, nor the footer: the prompt has the process.
        assert opened == [] and not app.opened and not app.query("Footer")
        # Nor laid out the conversation and the panel, empty until then.
        assert not app.query("#conversation") and not app.query("#cache-panel")


async def test_the_first_frames_prompt_hands_over_on_the_first_key_it_does_not_take(
    chat_options: OptionsFactory,
) -> None:
    """The stand-in takes plain typing only: Enter (and any key but typing and editing one
    line, or a `/` or `@`) brings the real prompt in first, the text and cursor carried over,
    and goes to it, with the keys typed behind it, in order."""
    options = chat_options()
    gate = IdleGate(quiet=30.0, latest=30.0)  # never reached: only keys bring the prompt in
    app = ChatApp(opener=Opener(options.workspace, lambda: ChatBackend(options)), idle_gate=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"ab")
        await pilot.press("left")  # a binding: it runs once the keys before it are typed
        await type_keys(pilot, "X")
        assert app.query_one("#first-prompt", FirstPrompt).value == "aXb"
        await type_keys(pilot, "enter", *"cd")  # Enter and typing right behind it
        await until(lambda: bool(app.queued), "the message to wait for the session")
        assert app.queued == ["aXb"]
        prompt = app.query_one("#prompt", PromptInput)
        assert prompt.has_focus and prompt.value == "cd"
        assert not app.query("#first-prompt")  # one prompt on screen
        # The conversation came with the prompt: the message's wait is said there.
        await until(
            lambda: "waiting while the session opens" in conversation_text(app), "the waiting line"
        )
        assert app.query("#cache-panel")


async def test_a_slash_in_the_first_frames_prompt_opens_the_command_list(
    chat_options: OptionsFactory,
) -> None:
    options = chat_options()
    gate = IdleGate(quiet=30.0, latest=30.0)
    app = ChatApp(opener=Opener(options.workspace, lambda: ChatBackend(options)), idle_gate=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, "/", *"mod")
        await until(lambda: bool(app.query("#completion")), "the prompt")
        listing = app.query_one("#completion", CompletionList)
        await until(lambda: listing.display, "the command list")
        assert app.query_one("#prompt", PromptInput).value == "/mod"
        assert [c.value for c in listing.items] == ["/model"]


def test_no_backend_and_no_opener_or_both_is_refused(chat_options: OptionsFactory) -> None:
    with pytest.raises(ValueError, match="not both"):
        ChatApp()
    backend = ChatBackend(chat_options())
    with pytest.raises(ValueError, match="not both"):
        ChatApp(backend, opener=Opener(backend.workspace.root, lambda: backend))


@pytest.mark.slow  # a real terminal: seconds
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_an_unknown_model_in_a_terminal_is_one_line_and_exit_2(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    args = [*exe(), "chat", "--workspace", str(ws), "--store", str(tmp_path / "s.sqlite")]
    args += ["--model", "claude-opsu-9"]
    unset = " ".join(f"-u {k}" for k in KEY_VARS)
    line = f"env {unset} TERM=xterm-256color {shlex.join(args)}; echo exit=$?; sleep 30"
    tmux = Tmux()
    try:
        tmux("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", line)
        pane = tmux.wait_for(lambda p: "exit=" in p, "the chat to exit")
    finally:
        tmux("kill-server")
    assert "exit=2" in pane
    assert "--model: unknown model 'claude-opsu-9'" in pane
    assert "Traceback" not in pane
