"""A Python prompt builder's callers decide whether its volatile value breaks the cache per
turn (`pycheck.callers`, `policies/pycallers.py`): called only where a conversation starts, in
its own file or in the project's other files, its clock is read once a conversation; called in
another module's chat loop or request handler, per turn. Each positive twin fails without the
search; each negative twin keeps the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies import engine
from tests.helpers.lintfind import project_findings

_BUILDER = (
    "from datetime import datetime\n\n\n"
    "def build_system_prompt():\n"
    "    return f'You are a helpful bot. Today is {datetime.now():%Y-%m-%d}.'\n"
)
_LISTING = (
    "import os\n\n\n"
    "def load_tools(folder):\n"
    "    tools = []\n"
    "    for f in os.listdir(folder):\n"
    "        tools.append({'name': f, 'description': 'a tool', 'input_schema': {}})\n"
    "    return tools\n"
)


_STARTS = {
    "a session's constructor": (
        "from app.prompts import build_system_prompt as bsp\n\n\n"
        "class ChatSession:\n"
        "    def __init__(self):\n"
        "        self.messages = [{'role': 'system', 'content': bsp()}]\n"
    ),
    "a function named for a new conversation": (
        "from . import prompts\n\n\n"
        "def new_conversation(store, cid):\n"
        "    store[cid] = [{'role': 'system', 'content': prompts.build_system_prompt()}]\n"
    ),
    "a first message stored while the history is empty": (
        "import app.prompts\n\n\n"
        "def turn(client, history, text):\n"
        "    if not history:\n"
        "        history.append({'role': 'system', 'content': "
        "app.prompts.build_system_prompt()})\n"
        "    history.append({'role': 'user', 'content': text})\n"
        "    return client.chat.completions.create(model='m', messages=history)\n"
    ),
    "a branch for a new conversation": (
        "from app.prompts import build_system_prompt\n\n\n"
        "def turn(client, state, text):\n"
        "    if state.is_new_conversation:\n"
        "        state.system = build_system_prompt()\n"
        "    return client.messages.create(model='m', system=state.system, messages=state.h)\n"
    ),
}


@pytest.mark.parametrize("caller", sorted(_STARTS))
def test_a_builder_called_only_where_a_conversation_starts_is_read_once(
    tmp_path: Path, caller: str
) -> None:
    found = project_findings(
        tmp_path,
        {"app/__init__.py": "", "app/prompts.py": _BUILDER, "app/chat.py": _STARTS[caller]},
    )
    assert ("prompts.py", 5, "PL102") not in found


_PER_TURN = {
    "a chat loop": (
        "from .prompts import build_system_prompt\n\n\n"
        "def chat(client, history):\n"
        "    while True:\n"
        "        history.append({'role': 'user', 'content': input()})\n"
        "        system = build_system_prompt()\n"
        "        client.messages.create(model='m', system=system, messages=history)\n"
    ),
    "a request handler": (
        "from .prompts import build_system_prompt\n\n\n"
        "@app.post('/chat')\n"
        "def chat(req):\n"
        "    system = build_system_prompt()\n"
        "    return client.messages.create(model='m', system=system, messages=req.history)\n"
    ),
    "a conversation's start and a loop": _STARTS["a function named for a new conversation"]
    + (
        "\n\ndef ask(client, history):\n"
        "    for q in questions:\n"
        "        s = prompts.build_system_prompt()\n"
        "        client.messages.create(model='m', system=s, messages=history)\n"
    ),
    "a branch on another flag": _STARTS["a branch for a new conversation"].replace(
        "is_new_conversation", "is_admin"
    ),
    "the builder handed on as a value": (
        "from .prompts import build_system_prompt\n\n\n"
        "def make_agent():\n"
        "    return Agent(instructions=build_system_prompt)\n"
    ),
}


@pytest.mark.parametrize("caller", sorted(_PER_TURN))
def test_a_builder_called_per_turn_elsewhere_keeps_its_finding(tmp_path: Path, caller: str) -> None:
    found = project_findings(
        tmp_path,
        {"app/__init__.py": "", "app/prompts.py": _BUILDER, "app/chat.py": _PER_TURN[caller]},
    )
    assert ("prompts.py", 5, "PL102") in found


def test_a_builder_nobody_is_seen_calling_keeps_its_finding(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/prompts.py": _BUILDER})
    assert ("prompts.py", 5, "PL102") in found


def test_module_load_settles_a_folder_listing_but_not_a_clock(tmp_path: Path) -> None:
    # A server's process outlives the day: its clock read at load still changes the prefix.
    found = project_findings(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/prompts.py": _BUILDER,
            "app/tools.py": _LISTING,
            "app/server.py": (
                "from app.prompts import build_system_prompt\n"
                "from app.tools import load_tools\n\n"
                "SYSTEM = build_system_prompt()\n"
                "TOOLS = load_tools('scripts')\n"
            ),
        },
    )
    assert ("prompts.py", 5, "PL102") in found
    assert ("tools.py", 6, "PL105") not in found


def test_a_builder_called_at_a_cli_start_in_its_own_file_is_read_once(tmp_path: Path) -> None:
    text = _BUILDER + (
        "\n\ndef main(client):\n"
        "    history = [{'role': 'system', 'content': build_system_prompt()}]\n"
        "    client.chat.completions.create(model='m', messages=history)\n"
    )
    assert project_findings(tmp_path / "once", {"cli.py": text}) == []
    per_turn = text.replace("    history = [", "    for q in qs:\n        history = [").replace(
        "    client.", "        client."
    )
    assert ("cli.py", 5, "PL102") in project_findings(tmp_path / "loop", {"cli.py": per_turn})


def test_each_project_file_is_read_once_whatever_the_builders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = engine._PY_CALLERS._text

    def counted(path: str) -> str | None:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(engine._PY_CALLERS, "_text", counted)
    per_file = []
    for n in (4, 8):
        reads.clear()
        files = {"app/__init__.py": ""}
        for i in range(n):
            files[f"app/p{i}.py"] = _BUILDER
            files[f"app/c{i}.py"] = _STARTS["a session's constructor"].replace(
                "app.prompts", f"app.p{i}"
            )
        found = project_findings(tmp_path / f"n{n}", files)
        assert not [f for f in found if f[2] == "PL102"]  # the search ran and settled each
        # the index reads every file once; a caller is read again once, to parse it
        per_file.append(len(reads) / (2 * n + 1))
    assert per_file[0] > 0
    assert per_file[0] == pytest.approx(per_file[1], rel=0.15)


_SCRIPT = _BUILDER + (
    "\n\nSYSTEM_PROMPT = build_system_prompt()\n\n\n"
    "def loop(client, ask):\n"
    "    history = [{'role': 'system', 'content': SYSTEM_PROMPT}]\n"
    "    while True:\n"
    "        history.append({'role': 'user', 'content': ask()})\n"
    "        client.chat.completions.create(model='m', messages=history)\n"
    "\n\nif __name__ == '__main__':\n"
    "    loop(None, input)\n"
)


def test_a_clock_built_at_a_scripts_load_is_read_once_a_run(tmp_path: Path) -> None:
    # A script run once: its module loads once a run, and a run is one conversation, as a
    # clock read directly at import into a prompt constant is.
    assert project_findings(tmp_path, {"agent.py": _SCRIPT}) == []


def test_the_same_module_without_a_main_guard_keeps_the_clock(tmp_path: Path) -> None:
    # Imported by a process that may serve for days: the load is not once a conversation.
    text = _SCRIPT.split("\n\nif __name__")[0] + "\n"
    assert ("agent.py", 5, "PL102") in project_findings(tmp_path, {"agent.py": text})


def test_a_script_that_starts_a_server_keeps_the_clock(tmp_path: Path) -> None:
    text = "import uvicorn\n" + _SCRIPT
    assert ("agent.py", 6, "PL102") in project_findings(tmp_path, {"agent.py": text})


def test_a_script_with_a_request_handler_keeps_the_clock(tmp_path: Path) -> None:
    text = _SCRIPT.replace("def loop(client, ask):", "@app.post('/chat')\ndef loop(client, ask):")
    assert ("agent.py", 5, "PL102") in project_findings(tmp_path, {"agent.py": text})


def test_a_scripts_builder_called_per_turn_keeps_the_clock(tmp_path: Path) -> None:
    text = _SCRIPT.replace(
        "        history.append({'role': 'user', 'content': ask()})\n",
        "        history[0] = {'role': 'system', 'content': build_system_prompt()}\n"
        "        history.append({'role': 'user', 'content': ask()})\n",
    )
    assert ("agent.py", 5, "PL102") in project_findings(tmp_path, {"agent.py": text})


# A run in another module that starts its own conversation, the builder called before its loop.
_RUN = (
    "from app.prompts import build_system_prompt\n\n\n"
    "def run(client, task):\n"
    "    system = build_system_prompt()\n"
    "    messages = [{'role': 'system', 'content': system}, {'role': 'user', 'content': task}]\n"
    "    while True:\n"
    "        reply = client.chat.completions.create(model='m', messages=messages)\n"
    "        messages.append({'role': 'assistant', 'content': reply.text})\n"
)
# The builder's own helper reads the clock: it runs whenever the builder does.
_HELPED = (
    "from datetime import datetime\n\n\n"
    "def today():\n"
    "    return datetime.now().strftime('%Y-%m-%d')\n\n\n"
    "def build_system_prompt():\n"
    "    return f'You are a helpful bot. Today is {today()}.'\n"
)


@pytest.mark.parametrize("builder", ["direct", "helped"])
def test_a_builder_called_for_a_conversation_a_run_starts_is_read_once(
    tmp_path: Path, builder: str
) -> None:
    prompts = _BUILDER if builder == "direct" else _HELPED
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/prompts.py": prompts, "app/run.py": _RUN}
    )
    assert not [f for f in found if f[2].startswith("PL10")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # called inside the loop: a new value each turn
        (
            "    system = build_system_prompt()\n",
            "    system = ''\n    while not system:\n        system = build_system_prompt()\n",
        ),
        # an earlier conversation spread into the list
        ("{'role': 'user', 'content': task}]", "*history]"),
    ],
)
@pytest.mark.parametrize("builder", ["direct", "helped"])
def test_a_builder_called_per_turn_or_ahead_of_an_earlier_conversation_is_reported(
    tmp_path: Path, builder: str, old: str, new: str
) -> None:
    prompts = _BUILDER if builder == "direct" else _HELPED
    run = _RUN.replace(old, new)
    assert run != _RUN
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/prompts.py": prompts, "app/run.py": run}
    )
    assert [f for f in found if f[0] == "prompts.py" and f[2] == "PL102"]
