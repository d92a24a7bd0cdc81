"""A tool's description and its parameters' descriptions come from its docstring in each style
`docstring-parser` reads (Google, NumPy, Sphinx, Epydoc): the parameter sections are never
sent as part of the tool's description."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock import tool


def google(path: str, limit: int = 10) -> str:
    """Read a file from the workspace.

    Args:
        path: the file's path,
            relative to the workspace.
        limit (int): at most this many lines.

    Returns:
        The text.
    """
    return path


def numpy_style(path: str, limit: int = 10) -> str:
    """Read a file from the workspace.

    Parameters
    ----------
    path : str
        the file's path,
        relative to the workspace.
    limit : int
        at most this many lines.

    Returns
    -------
    str
        The text.
    """
    return path


def sphinx(path: str, limit: int = 10) -> str:
    """Read a file from the workspace.

    :param path: the file's path,
        relative to the workspace.
    :param int limit: at most this many lines.
    :returns: The text.
    """
    return path


def epydoc(path: str, limit: int = 10) -> str:
    """Read a file from the workspace.

    @param path: the file's path,
        relative to the workspace.
    @param limit: at most this many lines.
    @return: The text.
    """
    return path


@pytest.mark.parametrize("fn", [google, numpy_style, sphinx, epydoc], ids=lambda f: f.__name__)
def test_each_docstring_style_gives_the_same_description(fn: Any) -> None:
    spec = tool(fn).spec
    assert spec.description == "Read a file from the workspace."
    props = spec.input_schema["properties"]
    assert props["path"]["description"] == "the file's path, relative to the workspace."
    assert props["limit"]["description"] == "at most this many lines."


def test_a_docstring_without_sections_is_all_description() -> None:
    def note(text: str) -> str:
        """Write a note.

        It is kept for the session."""
        return text

    spec = tool(note).spec
    assert spec.description == "Write a note.\n\nIt is kept for the session."
    assert "description" not in spec.input_schema["properties"]["text"]
