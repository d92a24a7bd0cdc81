"""Tool changes by name: one name or one tool alone is taken as such, and a name the prefix
does not hold is an error, not a quote of nothing.

`remove="grep"` used to iterate the letters of "grep", remove nothing and quote no change;
`remove=["gerp"]` (a typo) was silently ignored too.
"""

from __future__ import annotations

import pytest

from prefixlock.errors import PrefixError
from tests.helpers.guardkit import agent, grep, read_file, run_turns, start_emulator


async def test_one_name_or_one_tool_alone_and_unknown_names() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 1)
            q = s.quote_tools(add=grep)  # one tool, not in a list
            assert q.tokens_rebilled > 0
            s.change_tools(add=grep, quote=q)
            assert s.prefix.tool_names() == ("grep", "read_file")
            await run_turns(emu, s, 1, start=2)  # the new tool set is cached now
            q = s.quote_tools(remove="grep")  # one name, not its letters
            assert q.tokens_rebilled > 0
            s.change_tools(remove="grep", quote=q)
            assert s.prefix.tool_names() == ("read_file",)
            old = s.prefix
            with pytest.raises(PrefixError, match=r"no tool named 'gerp'.*read_file") as info:
                s.quote_tools(remove=["gerp"])
            assert info.value.where == "remove"
            with pytest.raises(PrefixError, match="'grep'"):
                s.change_tools(remove=["grep"], policy="allow")
            assert s.prefix is old
            assert read_file.name in s.prefix.tool_names()
