"""`/init`: an AGENTS.md drafted from the workspace itself (languages, test command, layout).

No model request: the draft is read off the files (extensions counted, the build files that
name a test command, the top-level folders), shown to the user, and written only when they
accept; an existing AGENTS.md is overwritten only after a second, explicit confirmation.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections import Counter
from pathlib import Path

from prefixlock.coding.workspace import SKIP_DIRS

LANGUAGES = {
    ".py": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".swift": "Swift",
    ".scala": "Scala",
    ".sh": "Shell",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".lua": "Lua",
    ".zig": "Zig",
}
SCAN_LIMIT = 20_000  # files looked at: a huge tree is sampled, not walked whole


def draft_agents_md(root: Path) -> str:
    """The AGENTS.md text for the workspace at `root`."""
    langs, folders = _scan(root)
    lines = [f"# {root.name}", "", "Notes for coding agents working in this repository.", ""]
    lines += ["## Languages", ""]
    if langs:
        lines += [f"- {lang} ({n:,} files)" for lang, n in langs.most_common(6)]
    else:
        lines.append("- (no source files recognised)")
    lines += ["", "## Commands", ""]
    commands = find_test_commands(root)
    if commands:
        lines += [f"- {what}: `{cmd}`" for what, cmd in commands]
    else:
        lines.append("- Tests: (no test command found; add it here)")
    lines += ["", "## Layout", ""]
    if folders:
        lines += [f"- `{name}/` ({n:,} files)" for name, n in folders]
    top = sorted(p.name for p in root.iterdir() if p.is_file() and not p.name.startswith("."))
    if top:
        lines.append("- top-level files: " + ", ".join(f"`{n}`" for n in top[:12]))
    lines += [
        "",
        "## Conventions",
        "",
        "- Run the tests before saying a change is done.",
        "- Keep changes small and focused; match the surrounding style.",
        "",
    ]
    return "\n".join(lines)


def find_test_commands(root: Path) -> list[tuple[str, str]]:
    """(what, command) for each build file at the root that names a way to test."""
    found: list[tuple[str, str]] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        uses_pytest = "pytest" in json.dumps(data) or (root / "tests").is_dir()
        found.append(("Tests", "python -m pytest -q" if uses_pytest else "python -m unittest"))
    elif (root / "setup.py").is_file() or ((root / "tests").is_dir() and _has(root, ".py")):
        found.append(("Tests", "python -m pytest -q"))
    package = root / "package.json"
    if package.is_file():
        try:
            scripts = json.loads(package.read_text(encoding="utf-8")).get("scripts", {})
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            scripts = {}
        if isinstance(scripts, dict):
            for name, what in (("test", "Tests"), ("lint", "Lint"), ("build", "Build")):
                if name in scripts:
                    found.append((what, "npm test" if name == "test" else f"npm run {name}"))
    if (root / "Cargo.toml").is_file():
        found.append(("Tests", "cargo test"))
    if (root / "go.mod").is_file():
        found.append(("Tests", "go test ./..."))
    makefile = root / "Makefile"
    if makefile.is_file():
        try:
            text = makefile.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if any(line.startswith("test:") for line in text.splitlines()):
            found.append(("Tests (make)", "make test"))
    return found


def _has(root: Path, suffix: str) -> bool:
    return any(root.glob(f"*{suffix}")) or any(root.glob(f"*/*{suffix}"))


def _scan(root: Path) -> tuple[Counter[str], list[tuple[str, int]]]:
    """Languages by file count, and each top-level folder's file count."""
    langs: Counter[str] = Counter()
    per_folder: Counter[str] = Counter()
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        rel = Path(dirpath).relative_to(root)
        for name in filenames:
            seen += 1
            lang = LANGUAGES.get(Path(name).suffix.lower())
            if lang:
                langs[lang] += 1
            if rel.parts:
                per_folder[rel.parts[0]] += 1
        if seen >= SCAN_LIMIT:
            break
    folders = sorted(per_folder.items())
    return langs, folders
