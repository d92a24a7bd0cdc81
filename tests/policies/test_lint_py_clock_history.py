"""Every earlier message of the history rebuilt with a clock reading on each request ("3 min
ago" from `time.time()` less the message's stored time) changes messages already sent: PL101.
Each positive has twins that differ in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "import time\n"
    "import openai\n"
    "\n"
    "def reply(OVER, text):\n"
    "    now = time.time()\n"
    '    msgs = [{"role": "system", "content": "You are helpful."}]\n'
    "    for m in OVER:\n"
    "        ago = AGO\n"
    '        msgs.append({"role": m["role"], "content": f"({SHOWN}) {m[\'content\']}"})\n'
    '    msgs.append({"role": "user", "content": text})\n'
    '    return openai.chat.completions.create(model="m", messages=msgs)\n'
)


def _src(over: str = "history", ago: str = 'int((now - m["ts"]) / 60)', shown: str = "ago") -> str:
    return _SRC.replace("OVER", over).replace("AGO", ago).replace("SHOWN", shown)


def test_minutes_ago_in_every_earlier_message_is_reported() -> None:
    assert lines_of(_src(), "PL101") == [9]


def test_over_the_last_messages_is_the_same() -> None:
    src = _src().replace("for m in history:", "for m in history[-20:]:")
    assert lines_of(src, "PL101") == [9]


def test_the_message_s_own_stored_time_is_not_reported() -> None:
    assert lines_of(_src(shown='m["at"]'), "PL101") == []


def test_a_loop_over_another_list_is_not_reported() -> None:
    assert lines_of(_src(over="documents"), "PL101") == []


def test_in_a_comprehension_is_reported() -> None:
    src = (
        "from datetime import datetime\n"
        "import openai\n"
        "\n"
        "def reply(history, text):\n"
        "    now = datetime.now()\n"
        '    msgs = [{"role": m["role"],\n'
        "             \"content\": f\"[{(now - m['at']).seconds}s] {m['text']}\"}\n"
        "            for m in history]\n"
        '    return openai.chat.completions.create(model="m", messages=msgs)\n'
    )
    assert lines_of(src, "PL101") == [7]


def test_a_comprehension_with_the_stored_time_is_not_reported() -> None:
    src = (
        "import openai\n"
        "\n"
        "def reply(history, text):\n"
        '    msgs = [{"role": m["role"], "content": f"[{m[\'at\']:%H:%M}] {m[\'text\']}"}\n'
        "            for m in history]\n"
        '    return openai.chat.completions.create(model="m", messages=msgs)\n'
    )
    assert lines_of(src, "PL101") == []


_HELPER = (
    "import time\n"
    "import openai\n"
    "\n"
    "def minutes_ago(ts):\n"
    "    return int((time.time() - ts) / 60)\n"
    "\n"
    "def stamp(ts):\n"
    '    return f"{ts:%H:%M}"\n'
    "\n"
    "def reply(history, text):\n"
    '    msgs = [{"role": m["role"], "content": f"({SHOW}) {m[\'content\']}"} for m in history]\n'
    '    return openai.chat.completions.create(model="m", messages=msgs)\n'
)


def test_a_module_helper_that_reads_the_clock_for_each_message_is_reported() -> None:
    assert lines_of(_HELPER.replace("SHOW", 'minutes_ago(m["ts"])'), "PL101") == [11]


def test_a_module_helper_that_reads_no_clock_is_not_reported() -> None:
    assert lines_of(_HELPER.replace("SHOW", 'stamp(m["ts"])'), "PL101") == []
