"""The twelfth Python pass (real20's development half).

A function whose docstring says it returns a system prompt (its summary line, or the first
line of its `Returns:` section, with the system prompt as the object) is read as one, whatever
its name (`pycheck.docprompt`): a clock it prepends is in every request's prefix. A mention of
a system prompt elsewhere in the docstring, or a prompt not said to be a system prompt, is no
such word.
"""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_COMPOSER = (
    "from datetime import date\n"
    "\n"
    "class Composer:\n"
    "    def compose_agent_prompt(self, name):\n"
    '        """DOC"""\n'
    "        composed = self._registry.get_prompt(name)\n"
    '        composed = f"Today\'s date: {date.today().isoformat()}\\n\\n{composed}"\n'
    "        return composed\n"
)


def _composer(doc: str) -> str:
    return _COMPOSER.replace("DOC", doc)


def _returns(summary: str, returned: str) -> str:
    """A docstring's text (escaped for the source) with a `Returns:` section."""
    return f"{summary}\\n\\n        Returns:\\n            {returned}\\n        "


def test_a_function_documented_as_composing_a_system_prompt_reports_its_date() -> None:
    assert lines_of(_composer("Compose complete agent system prompt."), "PL102") == [7]


def test_a_returns_section_naming_a_system_prompt_reports_its_date() -> None:
    doc = _returns("Compose skill prompt with layers.", "Complete skill system prompt with layers.")
    assert lines_of(_composer(doc), "PL102") == [7]


def test_a_system_prompt_only_mentioned_in_the_summary_is_no_such_word() -> None:
    doc = "Build the context for the LLM including the dynamic system prompt."
    assert lines_of(_composer(doc), "PL102") == []


def test_a_prompt_not_said_to_be_a_system_prompt_is_not_read_as_one() -> None:
    assert lines_of(_composer("Compose the report prompt for one summary."), "PL102") == []


def test_a_returns_line_with_the_system_prompt_after_a_preposition_is_no_such_word() -> None:
    doc = _returns("Compose the user turn.", "Text to send with the system prompt.")
    assert lines_of(_composer(doc), "PL102") == []
