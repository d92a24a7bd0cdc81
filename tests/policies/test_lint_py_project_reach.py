"""The fifteenth Python pass: a window (PL303), a volatile value (PL1xx) or the current request
in a prompt (PL304) is reported only where the linter sees it reach a model request somewhere in
the project, or cannot see where it goes (`pycheck/projectreach.py`). A method's window read by
a GET route in another file, a capped read nobody calls, a listing printed by a CLI command:
dropped. The same window returned to a caller in another file that sends it, kept on an object
whose other method sends it, or read in a public function nobody in the project calls (its
callers are outside): still reported."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.lintfind import lines_of, project_findings

# A store whose method reads the newest rows of a conversation, capped (a window, PL303).
_STORE = (
    "class ChatStore:\n"
    "    def __init__(self, conn):\n"
    "        self.conn = conn\n"
    "\n"
    "    async def recent_messages(self, cid, limit=8):\n"
    "        rows = await self.conn.fetch(\n"
    "            'SELECT role, content FROM messages WHERE cid = $1 '\n"
    "            'ORDER BY created_at DESC LIMIT $2', cid, limit)\n"
    "        return [{'role': r['role'], 'content': r['content']} for r in reversed(rows)]\n"
)
_LINE = 7
_GET_ROUTE = (
    "from fastapi import APIRouter\n"
    "from app.store import ChatStore\n"
    "router = APIRouter()\n"
    "store = ChatStore(None)\n"
    "\n"
    "@router.get('/conversations/{cid}/messages')\n"
    "async def page(cid: str):\n"
    "    return {'messages': await store.recent_messages(cid)}\n"
)
_SENDER = (
    "from openai import AsyncOpenAI\n"
    "from app.store import ChatStore\n"
    "client = AsyncOpenAI()\n"
    "\n"
    "class ChatService:\n"
    "    def __init__(self, store: ChatStore):\n"
    "        self.store = store\n"
    "\n"
    "    async def reply(self, cid, text):\n"
    "        history = await self.store.recent_messages(cid)\n"
    "        history.append({'role': 'user', 'content': text})\n"
    "        return await client.chat.completions.create(model='m', messages=history)\n"
)


def _windows(found: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    return [(name, line) for name, line, code in found if code == "PL303"]


def test_the_windowed_read_is_a_window_in_a_file_of_its_own() -> None:
    # the finding the project's search then keeps or drops
    assert lines_of(_STORE, "PL303", "store.py") == [_LINE]


def test_a_method_whose_window_only_a_get_route_in_another_file_reads_is_dropped(
    tmp_path: Path,
) -> None:
    found = project_findings(
        tmp_path,
        {"app/__init__.py": "", "app/store.py": _STORE, "app/routes.py": _GET_ROUTE},
    )
    assert _windows(found) == []


def test_the_same_window_returned_to_a_caller_in_another_file_that_sends_it_reports(
    tmp_path: Path,
) -> None:
    found = project_findings(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/store.py": _STORE,
            "app/routes.py": _GET_ROUTE,
            "app/service.py": _SENDER,
        },
    )
    assert ("store.py", _LINE) in _windows(found)


def test_a_window_passed_up_two_callers_to_one_that_sends_it_reports(tmp_path: Path) -> None:
    builder = (
        "from app.store import ChatStore\n"
        "\n"
        "async def build_messages(store, cid, text):\n"
        "    messages = [{'role': 'system', 'content': 'You are terse.'}]\n"
        "    messages.extend(await store.recent_messages(cid))\n"
        "    messages.append({'role': 'user', 'content': text})\n"
        "    return messages\n"
    )
    turn = (
        "from app.builder import build_messages\n"
        "from app.llm import call_guarded\n"
        "\n"
        "async def tutor_turn(store, cid, text):\n"
        "    messages = await build_messages(store, cid, text)\n"
        "    return await call_guarded(messages)\n"
    )
    llm = (
        "import httpx\n"
        "\n"
        "async def call_guarded(messages):\n"
        "    async with httpx.AsyncClient() as c:\n"
        "        return await c.post('https://x', json={'model': 'm', 'messages': messages})\n"
    )
    found = project_findings(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/store.py": _STORE,
            "app/builder.py": builder,
            "app/turn.py": turn,
            "app/llm.py": llm,
        },
    )
    assert ("store.py", _LINE) in _windows(found)


def test_a_public_method_nobody_in_the_project_calls_still_reports(tmp_path: Path) -> None:
    # its callers are outside the project (a library's API): where it goes is not seen
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/store.py": _STORE})
    assert ("store.py", _LINE) in _windows(found)


_MODULE_READ = (
    "async def _recent(conn, cid):\n"
    "    rows = await conn.fetch(\n"
    "        'SELECT role, content FROM messages WHERE cid = $1 '\n"
    "        'ORDER BY created_at DESC LIMIT 8', cid)\n"
    "    return [{'role': r['role'], 'content': r['content']} for r in reversed(rows)]\n"
)


def test_a_private_module_function_nobody_calls_is_dropped(tmp_path: Path) -> None:
    assert lines_of(_MODULE_READ, "PL303", "store.py") == [3]
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/store.py": _MODULE_READ})
    assert _windows(found) == []


def test_a_private_method_nobody_in_the_project_calls_still_reports(tmp_path: Path) -> None:
    # a library's base class may call it (a hook the class overrides)
    store = _STORE.replace("recent_messages", "_recent_messages")
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/store.py": store})
    assert ("store.py", _LINE) in _windows(found)


def test_a_window_handed_on_as_a_value_still_reports(tmp_path: Path) -> None:
    # `tools=[store.recent_messages]`: called where the analysis does not look
    tools = (
        "from app.store import ChatStore\n"
        "store = ChatStore(None)\n"
        "TOOLS = [store.recent_messages]\n"
    )
    files = {"app/store.py": _STORE, "app/routes.py": _GET_ROUTE, "app/tools.py": tools}
    found = project_findings(tmp_path, {"app/__init__.py": "", **files})
    assert ("store.py", _LINE) in _windows(found)


def test_a_window_kept_on_the_object_whose_other_method_sends_it_reports(
    tmp_path: Path,
) -> None:
    # the method that cuts the window is called only by a route that sends nothing, but it
    # keeps the window on the object, and another method sends it
    bot = (
        "from openai import AsyncOpenAI\n"
        "client = AsyncOpenAI()\n"
        "\n"
        "class Bot:\n"
        "    def __init__(self, conn):\n"
        "        self.conn = conn\n"
        "        self.window = []\n"
        "\n"
        "    async def load(self, cid):\n"
        "        rows = await self.conn.fetch(\n"
        "            'SELECT role, content FROM messages WHERE cid = $1 '\n"
        "            'ORDER BY created_at DESC LIMIT 8', cid)\n"
        "        self.window = [{'role': r['role'], 'content': r['content']} for r in rows]\n"
        "\n"
        "    async def ask(self, text):\n"
        "        messages = [*self.window, {'role': 'user', 'content': text}]\n"
        "        return await client.chat.completions.create(model='m', messages=messages)\n"
    )
    route = (
        "from fastapi import APIRouter\n"
        "from app.bot import Bot\n"
        "router = APIRouter()\n"
        "bot = Bot(None)\n"
        "\n"
        "@router.post('/conversations/{cid}/open')\n"
        "async def open_chat(cid: str):\n"
        "    await bot.load(cid)\n"
        "    return {'ok': True}\n"
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/bot.py": bot, "app/routes.py": route}
    )
    assert ("bot.py", 11) in _windows(found)


def test_a_listing_a_cli_command_prints_is_dropped(tmp_path: Path) -> None:
    cli = (
        "import asyncio\n"
        "import click\n"
        "loop = asyncio.new_event_loop()\n"
        "from app.store import ChatStore\n"
        "\n"
        "@click.command()\n"
        "def show(cid):\n"
        "    for m in loop.run_until_complete(ChatStore(None).recent_messages(cid)):\n"
        "        print(m['role'], m['content'])\n"
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/cli.py": cli}
    )
    assert _windows(found) == []


def test_a_route_that_also_sends_the_window_still_reports(tmp_path: Path) -> None:
    route = _GET_ROUTE.replace(
        "    return {'messages': await store.recent_messages(cid)}\n",
        "    history = await store.recent_messages(cid)\n    return await ask_llm(history)\n",
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/routes.py": route}
    )
    assert ("store.py", _LINE) in _windows(found)


def test_a_window_only_tests_read_is_dropped(tmp_path: Path) -> None:
    test = (
        "from app.store import ChatStore\n"
        "\n"
        "async def check_recent():\n"
        "    assert await ChatStore(None).recent_messages('c') == []\n"
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "tests/test_store.py": test}
    )
    assert _windows(found) == []


_CLOCK = (
    "from datetime import datetime\n"
    "\n"
    "def _system_prompt():\n"
    "    return f'You are a helpful bot. Now: {datetime.now():%H:%M:%S}.'\n"
    "\n"
    "def preview(path):\n"
    "    with open(path, 'w') as fh:\n"
    "        fh.write(_system_prompt())\n"
)


def test_a_dated_prompt_written_only_to_a_preview_file_is_dropped(tmp_path: Path) -> None:
    cli = (
        "import click\n"
        "from app.prompts import preview\n"
        "\n"
        "@click.command()\n"
        "def main(path):\n"
        "    preview(path)\n"
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/prompts.py": _CLOCK, "app/cli.py": cli}
    )
    assert [f for f in found if f[2].startswith("PL1")] == []


def test_the_same_dated_prompt_sent_by_a_caller_reports(tmp_path: Path) -> None:
    prompts = _CLOCK + (
        "\n"
        "def turn(client, history):\n"
        "    messages = [{'role': 'system', 'content': _system_prompt()}, *history]\n"
        "    return client.chat.completions.create(model='m', messages=messages)\n"
    )
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/prompts.py": prompts})
    assert [f for f in found if f[2].startswith("PL1")] != []


_SCRIPT = (
    "import asyncio\n"
    "from app.store import ChatStore\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    rows = asyncio.new_event_loop().run_until_complete(ChatStore(None).recent_messages('c'))\n"
    "    SEND\n"
)


def test_a_window_a_script_only_prints_is_dropped(tmp_path: Path) -> None:
    script = _SCRIPT.replace("SEND", "print(rows)")
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/demo.py": script}
    )
    assert _windows(found) == []


def test_a_window_a_script_sends_still_reports(tmp_path: Path) -> None:
    script = "import ollama\n" + _SCRIPT.replace(
        "SEND", "print(ollama.chat(model='m', messages=rows))"
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/demo.py": script}
    )
    assert ("store.py", _LINE) in _windows(found)


def test_a_window_read_into_a_module_constant_still_reports(tmp_path: Path) -> None:
    # outside a `__main__` guard a module's code keeps the value in a global, read elsewhere
    script = _SCRIPT.replace("if __name__ == '__main__':\n    ", "").replace("    SEND\n", "")
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/demo.py": script}
    )
    assert ("store.py", _LINE) in _windows(found)


def test_a_record_built_with_a_message_keyword_is_no_request(tmp_path: Path) -> None:
    # `Result(message=...)` in the route builds a response record, it sends nothing
    route = _GET_ROUTE.replace(
        "    return {'messages': await store.recent_messages(cid)}\n",
        "    rows = await store.recent_messages(cid)\n    return Page(message='ok', items=rows)\n",
    )
    found = project_findings(
        tmp_path, {"app/__init__.py": "", "app/store.py": _STORE, "app/routes.py": route}
    )
    assert _windows(found) == []


def test_a_stand_in_in_a_test_file_does_not_make_a_caller_send(tmp_path: Path) -> None:
    # the route calls `fetch_page`; only the test's stand-in of it asks a model
    route = (
        _GET_ROUTE.replace(
            "    return {'messages': await store.recent_messages(cid)}\n",
            "    return fetch_page(await store.recent_messages(cid))\n",
        )
        + "\ndef fetch_page(rows):\n    return {'items': rows}\n"
    )
    stand_in = (
        "def fetch_page(rows):\n"
        "    return ask_llm(rows)\n"
        "\n"
        "def test_page():\n"
        "    assert fetch_page([]) is not None\n"
    )
    files = {"app/store.py": _STORE, "app/routes.py": route, "tests/test_page.py": stand_in}
    assert _windows(project_findings(tmp_path, {"app/__init__.py": "", **files})) == []


def test_the_same_helper_that_asks_a_model_outside_the_tests_reports(tmp_path: Path) -> None:
    route = (
        _GET_ROUTE.replace(
            "    return {'messages': await store.recent_messages(cid)}\n",
            "    return fetch_page(await store.recent_messages(cid))\n",
        )
        + "\ndef fetch_page(rows):\n    return ask_llm(rows)\n"
    )
    files = {"app/store.py": _STORE, "app/routes.py": route}
    assert ("store.py", _LINE) in _windows(
        project_findings(tmp_path, {"app/__init__.py": "", **files})
    )
