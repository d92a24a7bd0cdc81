"""Claude Code's hooks in the chat, on its backend: a repository's hooks are listed and not run
until trusted; trusted, UserPromptSubmit adds context to the message (the prefix unchanged),
exit 2 keeps a message from being sent, PreToolUse blocks a read and says why to the model,
and a Stop hook sends the model on once. (`prefixlock run`'s: tests/coding/test_hooks.py.)"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from pathlib import Path

from tests.helpers.backend_drive import OptionsFactory, started

HOOK = """
import json, sys
event = json.load(sys.stdin)
name = event["hook_event_name"]
if name == "UserPromptSubmit" and "forbidden" in event["prompt"]:
    print("that word is not allowed here", file=sys.stderr)
    sys.exit(2)
if name == "UserPromptSubmit":
    print("Hook context: the release is on Friday.")
if name == "PreToolUse" and event["tool_name"] == "Read":
    print("no reads today", file=sys.stderr)
    sys.exit(2)
if name == "Stop" and not event["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "hello again"}))
"""


def _hooks(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    group = [{"hooks": [{"type": "command", "command": command}]}]
    events = ("UserPromptSubmit", "PreToolUse", "Stop")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {e: group for e in events}})
    )


async def test_untrusted_repository_hooks_are_listed_not_run(
    chat_options: OptionsFactory, workspace: Path, tmp_path: Path
) -> None:
    _hooks(workspace, tmp_path)
    async with started(chat_options()) as chat:
        assert "3 hook(s) of the workspace's .claude settings not run" in chat.backend.hook_notes[0]
        await chat.say("hello")
        assert "release is on Friday" not in chat.last_user_text()


async def test_trusted_hooks_add_context_block_and_go_on(
    chat_options: OptionsFactory, workspace: Path, tmp_path: Path
) -> None:
    _hooks(workspace, tmp_path)
    options = dataclasses.replace(chat_options(), trust_hooks=True)
    async with started(options) as chat:
        backend = chat.backend
        system = json.dumps(backend.session.prefix.system)
        events = await chat.say("hello")
        # The context joined the message; the Stop hook sent "hello again" once.
        users = [m for m in backend.session.transcript.messages if m.role == "user"]
        texts = [" ".join(str(b.get("text", "")) for b in m.blocks) for m in users]
        assert "Hook context: the release is on Friday." in texts[0]
        assert "Stop hook: going on: hello again" in chat.notes
        assert texts[-1].startswith("hello again")
        assert json.dumps(backend.session.prefix.system) == system
        assert events
        sent = len(backend.session.requests)
        await chat.say("a forbidden word")
        assert len(backend.session.requests) == sent  # not sent
        assert any("that word is not allowed here" in n for n in chat.notes)
        await chat.say("look around")
        # list_dir ran; the README's read_file was refused with the hook's reason.
        results = chat.tool_results()
        assert any("README.md" in c and not err for c, err in results)
        assert [err for c, err in results if "no reads today" in c] == [True]
