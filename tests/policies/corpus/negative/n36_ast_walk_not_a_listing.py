"""`ast.walk` walks a syntax tree in a fixed order; it lists no files. The prompt it feeds is
the same in every request."""

import ast

SOURCE = "def read(path): ...\ndef write(path, text): ...\n"


def tool_names() -> list[str]:
    return [n.name for n in ast.walk(ast.parse(SOURCE)) if isinstance(n, ast.FunctionDef)]


def build_system() -> str:
    system_prompt = "You may call: " + ", ".join(tool_names())
    return system_prompt
