"""Scripted model: scripts by turn and by matching text, from files, checked field by field."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import BUILTIN, Emulator, EmulatorConfig, Script
from prefixlock.emulator.model import Call, Conversation, Rule, ScriptedModel, Step
from prefixlock.emulator.workspace import TOOL_SPECS, Workspace
from prefixlock.errors import ConfigError
from tests.helpers.sdk import anthropic, openai

if TYPE_CHECKING:  # SDK types only: the SDKs load on first use (tests.helpers.sdk)
    from anthropic.types import Message, MessageParam, ToolParam


SCRIPT_YAML = """
prompts: ["hello", "run the tests"]
rules:
  - match: "deploy"
    steps:
      - text: "I will not deploy on a Friday."
  - turn: 2
    steps:
      - text: "Running them."
        tool: run_tests
        input: {target: tests}
      - text: "All green."
default: "Hi there."
"""
TOOLS: list[ToolParam] = [
    {"name": "run_tests", "description": "Run tests", "input_schema": {"type": "object"}}
]


def first_text(message: Message) -> str:
    block = message.content[0]
    assert isinstance(block, anthropic.types.TextBlock)
    return block.text


def test_script_file_drives_replies_by_turn_and_match(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(SCRIPT_YAML)
    with Emulator.start(config=EmulatorConfig(script=str(path)), clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        msgs: list[MessageParam] = [{"role": "user", "content": "hello"}]
        first = client.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=msgs)
        assert first_text(first) == "Hi there."
        msgs += [
            {"role": "assistant", "content": "Hi there."},
            {"role": "user", "content": "run the tests"},
        ]
        second = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, messages=msgs, tools=TOOLS
        )
        call = second.content[1]
        assert call.type == "tool_use" and call.input == {"target": "tests"}
        assert second.stop_reason == "tool_use"
        msgs += [
            {
                "role": "assistant",
                "content": second.content,
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "ok"}],
            },
        ]
        third = client.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=msgs)
        assert first_text(third) == "All green."
        oai = openai.OpenAI(api_key="k", base_url=emu.openai_base_url, max_retries=0)
        reply = oai.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "Please deploy now"}]
        )
        assert reply.choices[0].message.content == "I will not deploy on a Friday."


def test_replies_are_deterministic_and_stop_after_the_script() -> None:
    model = ScriptedModel(BUILTIN)
    conv = Conversation(1, "anything", 0, ("list_files",))
    assert model.reply(conv) == model.reply(conv)
    assert model.reply(conv).tool_calls[0].name == "list_files"
    # Past the steps of a turn the model closes the turn instead of calling tools forever.
    assert not model.reply(Conversation(1, "x", 99, ("list_files",))).tool_calls
    # A tool the request does not offer becomes text.
    assert not model.reply(Conversation(1, "x", 0, ("other",))).tool_calls


def test_builtin_session_is_30_plus_user_turns() -> None:
    assert len(BUILTIN.prompts) == len(BUILTIN.rules) >= 30
    assert sum(len(r.steps) for r in BUILTIN.rules) >= 90


def test_builtin_session_does_real_work_on_its_workspace() -> None:
    """Played against its workspace, every scripted edit applies exactly, the suite starts red
    and ends green, and the session explores, reads, edits, tests and reviews."""
    workspace = Workspace()
    model = ScriptedModel(BUILTIN)
    names = tuple(spec.name for spec in TOOL_SPECS)
    used: Counter[str] = Counter()
    summaries: list[str] = []  # the last line of each test run
    for turn, prompt in enumerate(BUILTIN.prompts, start=1):
        step = 0
        while (reply := model.reply(Conversation(turn, prompt, step, names))).tool_calls:
            (call,) = reply.tool_calls
            args = dict(call.input)
            if call.name == "edit_file":
                assert workspace.files[args["path"]].count(args["old"]) == 1, (turn, args)
            used[call.name] += 1
            out = workspace.run(call.name, args)
            if call.name == "run_tests":
                summaries.append(out.splitlines()[-1])
            step += 1
        assert reply.text and step < 10
    assert summaries[0].startswith("39 passed, 2 failed")
    assert summaries[-1].startswith("44 passed, 0 failed")  # 41 + the 3 tests it added
    assert any(" 1 failed" in r for r in summaries[1:])  # a test written first, seen failing
    assert {"list_files", "read_file", "grep", "edit_file", "run_tests", "git_diff"} <= set(used)
    assert used["edit_file"] >= 20 and used["run_tests"] >= 15


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("rules:\n  - turn: 1\n    steps: []\n", "rules.0.steps"),
        ("rules:\n  - match: '('\n    steps: [{text: x}]\n", "rules.0.match"),
        ("rules:\n  - turn: 1\n    steps: [{txt: x}]\n", "rules.0.steps.0.txt"),
    ],
)
def test_bad_script_names_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        Script.load(path)
    assert str(path) in str(info.value) and field in str(info.value)


def test_the_documented_script_format_loads_and_behaves(tmp_path: Path) -> None:
    """The YAML example in Script's docstring (what `serve --help` points to) is a valid script."""
    doc = Script.__doc__ or ""
    block = doc.split("::", 1)[1]
    path = tmp_path / "documented.yaml"
    path.write_text(textwrap.dedent(block).strip() + "\n")
    model = ScriptedModel(Script.load(path))
    tools = ("run_tests",)
    call = model.reply(Conversation(2, "run them", 0, tools)).tool_calls[0]
    assert (call.name, dict(call.input)) == ("run_tests", {"target": "tests"})
    assert model.reply(Conversation(2, "run them", 1, tools)).text == "All green."
    assert model.reply(Conversation(2, "Deploy it now", 0, tools)).text == "Not on a Friday."
    assert model.reply(Conversation(5, "anything else", 0, tools)).text == "Done."
    both = model.reply(Conversation(3, "Read both files", 0, ("read_file",))).tool_calls
    assert [dict(c.input) for c in both] == [{"path": "a.py"}, {"path": "b.py"}]
    assert len({c.id for c in both}) == 2
    assert model.reply(Conversation(3, "Read both files", 1, ("read_file",))).text == "Both read."


def test_parallel_tool_calls_reach_the_client_as_blocks_of_one_reply() -> None:
    """A step with `parallel` calls answers with several tool_use blocks in one message; the
    client sends all their results in one user message and the turn goes on."""
    script = Script(
        rules=[
            Rule(
                turn=1,
                steps=[
                    Step(
                        text="Reading.",
                        tool="run_tests",
                        input={"target": "a"},
                        parallel=[
                            Call(tool="run_tests", input={"target": f"t{i}"}) for i in range(11)
                        ],
                    ),
                    Step(text="Read them all."),
                ],
            )
        ]
    )
    with Emulator.start(clock=ManualClock(), script=script) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        msgs: list[MessageParam] = [{"role": "user", "content": "go"}]
        reply = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, messages=msgs, tools=TOOLS
        )
        uses = [b for b in reply.content if b.type == "tool_use"]
        assert len(uses) == 12 and reply.stop_reason == "tool_use"
        msgs += [
            {"role": "assistant", "content": reply.content},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": u.id, "content": "ok"} for u in uses
                ],
            },
        ]
        done = client.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=msgs)
        assert first_text(done) == "Read them all."


def _conv(text: str, turn: int = 3) -> Conversation:
    return Conversation(user_turn=turn, user_text=text, step=0, tools=("run_tests",))


def test_a_summary_request_gets_a_summary_of_the_scripted_length() -> None:
    from prefixlock.emulator.model import Summary

    turn_rule = Rule(turn=3, steps=[Step(text="Turn three.", tool="run_tests")])
    asked = Rule(match="summarize what changed", steps=[Step(text="Only the diff.")])
    script = Script(rules=[asked, turn_rule], summary=Summary(tokens=300))
    model = ScriptedModel(script)
    ours = model.reply(_conv("Summarize this conversation so far so that the work can go on."))
    langchain = model.reply(_conv("<messages>\nMessages to summarize:\n...</messages>", turn=1))
    assert ours.output_tokens == 300 and not ours.tool_calls
    assert langchain.text == ours.text  # the same summary whoever asks, whatever came before
    # A user's own request that a match rule covers keeps its rule; other turns are untouched.
    assert model.reply(_conv("Run it and summarize what changed.")).text == "Only the diff."
    assert model.reply(_conv("Run the tests.")).tool_calls
    # Without `summary` a summary request is a turn like any other (here: turn 3's rule).
    plain = ScriptedModel(Script(rules=[turn_rule]))
    assert plain.reply(_conv("Summarize this conversation so far.")).tool_calls


def test_a_summary_with_a_bad_pattern_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("summary: {tokens: 10, match: '('}\n")
    with pytest.raises(ConfigError) as e:
        Script.load(path)
    assert "summary" in str(e.value)
