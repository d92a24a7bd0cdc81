"""The layout rules a reader relies on, read from the source (no imports of the package):

- everything installs under `prefixlock`, and the folders that make it up are all shipped;
- nothing here imports the old top-level names (`harness`, `agents`, `policies`, `tui`);
- the dependency direction: the SDK core imports nothing of agents, policies or tui; agents and
  policies import only the core; tui may import all three;
- the pure modules (request building, cache rules and prediction, pricing, lint rules, the
  simulator's engine) import no I/O, directly or through the package modules they import. A
  module says it is pure with one comment line right after its docstring (a blank line between):
  `# pure: imports no I/O (tests/test_layout.py checks it)`; the list checked is read from those
  markers, and a marker in any other form or place fails;
- tests, benchmarks and examples name no machine-specific absolute path;
- the tests are one package: shared code imported as `tests.<folder>.<module>`, never by a bare
  name, and nothing puts a folder on the import path.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Programs of third-party frameworks, run in their own venv (never collected, never imported by
# us): they import the SDKs at the top and openai-agents' own top-level `agents`, as users do.
THIRDPARTY_CLIENTS = ROOT / "tests" / "thirdparty" / "clients"
# The same for the versus peer of openai-agents: a script run in its own venv by
# prefixlock.versus (never imported), importing openai-agents' top-level `agents`.
OPENAI_AGENTS_PEER = ROOT / "harness" / "versus" / "peers" / "openai_agents_peer.py"
FOLDERS = {
    "harness": "prefixlock",
    "agents": "prefixlock.agents",
    "policies": "prefixlock.policies",
    "tui": "prefixlock.tui",
}
OLD_NAMES = ("harness", "agents", "policies", "tui")

# Modules that talk to the outside world: network, processes, threads, databases, the file
# system, the clock.
IO_MODULES = frozenset(
    {
        "anthropic", "asyncio.subprocess", "concurrent", "gzip", "http", "httpx", "httpx2",
        "io", "multiprocessing", "openai", "os", "pathlib", "select", "shutil", "signal",
        "socket", "sqlite3", "subprocess", "tempfile", "threading", "time", "urllib.request",
    }
)  # fmt: skip

# The line a pure module carries right after its docstring (see the module docstring above).
PURE_MARKER = "# pure: imports no I/O (tests/test_layout.py checks it)"
# Any comment that starts like the marker: each must be the marker, in its place.
PURE_LIKE = re.compile(r"#\s*pure\b", re.IGNORECASE)


def _module_files() -> Iterator[tuple[str, Path]]:
    for folder, base in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join([base, *parts]), path


MODULES = dict(_module_files())


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - (node.level - 1)])
    return f"{base}.{node.module}" if node.module else base


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(nodes: list[ast.stmt], top_level: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif top_level and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue  # runs when called, not at import time
        elif top_level and isinstance(node, ast.If) and _type_checking(node):
            yield from _import_nodes(node.orelse, top_level)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    yield from _import_nodes([child], top_level)
                elif isinstance(child, ast.ExceptHandler | ast.match_case):
                    yield from _import_nodes(child.body, top_level)


@cache  # the pure modules' import graphs share most of their modules: each read once
def _imports(module: str, *, top_level: bool) -> frozenset[str]:
    """Names `module` imports (a submodule imported with `from pkg import mod` counts as
    `pkg.mod`). `top_level`: only what runs at import time (not inside functions, not under
    `if TYPE_CHECKING`)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in _import_nodes(tree.body, top_level):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
            continue
        target = _resolve(module, path, node)
        found.add(target)
        found.update(f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES)
    return frozenset(found)


def test_every_folder_of_the_package_is_shipped() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    mapping = config["package-dir"]
    assert mapping == {v: k for k, v in FOLDERS.items()}
    listed = set(config["packages"])
    on_disk = set()
    for folder, base in FOLDERS.items():
        for d in [ROOT / folder, *(ROOT / folder).rglob("*")]:
            if not d.is_dir() or d.name == "__pycache__":
                continue
            if any(f.is_file() for f in d.iterdir()):
                rel = d.relative_to(ROOT / folder).parts
                on_disk.add(".".join([base, *rel]))
    assert listed == on_disk, (
        f"not listed in pyproject's packages: {sorted(on_disk - listed)}; "
        f"listed but gone: {sorted(listed - on_disk)}"
    )
    assert (ROOT / "harness" / "py.typed").is_file()


def _python_files() -> Iterator[Path]:
    for folder in (*FOLDERS, "tests", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            if "corpus" not in path.parts:
                yield path


# An import line that names an old top-level package outside a dotted name (`import harness`,
# `from tui.app import ...`, `import os, agents`); the AST decides for the files it matches.
_MAY_IMPORT_OLD = re.compile(
    r"^[ \t]*(?:from|import)\b[^\n]*(?<![.\w])(?:harness|agents|policies|tui)\b", re.M
)


def test_nothing_imports_the_old_top_level_names() -> None:
    offenders = []
    for path in _python_files():
        if path.is_relative_to(THIRDPARTY_CLIENTS) or path == OPENAI_AGENTS_PEER:
            continue
        text = path.read_text("utf-8")
        if not _MAY_IMPORT_OLD.search(text):
            continue  # no import line names them: nothing to parse (most files)
        tree = ast.parse(text)
        for node in _import_nodes(tree.body, top_level=False):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in OLD_NAMES:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    docs = [ROOT / "README.md", *(ROOT / f / "README.md" for f in FOLDERS)]
    old = re.compile(r"^\s*(from|import) (harness|agents|policies|tui)\b", re.M)
    for doc in docs:
        for m in old.finditer(doc.read_text("utf-8")):
            line = doc.read_text("utf-8")[: m.start()].count("\n") + 1
            offenders.append(f"{doc.relative_to(ROOT)}:{line}: {m.group(0).strip()}")
    assert not offenders, offenders


@cache
def _product(module: str) -> str:
    for sub in ("agents", "policies", "tui"):
        if module == f"prefixlock.{sub}" or module.startswith(f"prefixlock.{sub}."):
            return sub
    return "core"


# Which products each product may import (docs/design.md#dependency-direction).
ALLOWED = {
    "core": {"core"},
    "agents": {"core", "agents"},
    "policies": {"core", "policies"},
    "tui": {"core", "agents", "policies", "tui"},
}


def test_dependency_direction() -> None:
    wrong = []
    for module in MODULES:
        for imported in _imports(module, top_level=False):
            if not imported.startswith("prefixlock"):
                continue
            if _product(imported) not in ALLOWED[_product(module)]:
                wrong.append(f"{module} imports {imported}")
    assert not wrong, wrong


def _layer(module: str) -> str:
    """Inside the core: the command line (`prefixlock.cli` and each product's `cli` module), the
    coding-tools runtime (`prefixlock.coding`), and the SDK library (the rest)."""
    if (
        module == "prefixlock.cli"
        or module.startswith("prefixlock.cli.")
        or module.endswith(".cli")
    ):
        return "cli"
    if module == "prefixlock.coding" or module.startswith("prefixlock.coding."):
        return "coding"
    return "library"


# Which layers of the core each layer may import. The package root (`prefixlock/__init__.py`)
# is the public facade: it names `Workspace` among its lazy exports, and is left out.
LAYERS = {
    "library": {"library"},
    "coding": {"library", "coding"},
    "cli": {"library", "coding", "cli"},
}


def test_the_library_never_imports_the_coding_runtime_or_the_command_line() -> None:
    wrong = []
    for module in MODULES:
        if module == "prefixlock" or _product(module) != "core":
            continue
        for imported in _imports(module, top_level=False):
            inside_core = imported.startswith("prefixlock") and _product(imported) == "core"
            if inside_core and _layer(imported) not in LAYERS[_layer(module)]:
                wrong.append(f"{module} ({_layer(module)}) imports {imported}")
    assert not wrong, wrong


@cache  # asked of every module by two tests
def _pure_marker(path: Path) -> tuple[bool, list[str]]:
    """Whether the module at `path` is marked pure, and what is wrong with its marker-like
    comments (another form, another place, a module without a docstring)."""
    source = path.read_text("utf-8")
    if not PURE_LIKE.search(source):
        return False, []  # no comment can be a marker (most modules: no need to tokenize them)
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    has_doc = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    lines = source.splitlines()
    # The marker's place: the docstring, one blank line, the marker.
    place = first.end_lineno + 2 if first is not None and has_doc and first.end_lineno else 0
    marked = 0 < place <= len(lines) and lines[place - 1] == PURE_MARKER and not lines[place - 2]
    wrong = []
    comments = tokenize.generate_tokens(io.StringIO(source).readline)
    for token in comments:
        if token.type != tokenize.COMMENT or not PURE_LIKE.match(token.string):
            continue
        line = token.start[0]
        if not (marked and line == place):
            rel = path.relative_to(ROOT)
            wrong.append(
                f"{rel}:{line}: {token.string!r} (the marker is {PURE_MARKER!r}, "
                "alone on the line after the docstring and a blank line)"
            )
    return marked, wrong


def _pure_modules() -> list[str]:
    return [module for module, path in MODULES.items() if _pure_marker(path)[0]]


def test_pure_markers_have_one_form_and_one_place() -> None:
    wrong = [w for path in MODULES.values() for w in _pure_marker(path)[1]]
    assert not wrong, wrong
    assert _pure_modules(), "no module is marked pure: the marker text changed?"


def _io_imports(module: str) -> list[str]:
    """The I/O modules `module` loads at import time, with the package module that imports
    each (package __init__ files are left out: they only gather names)."""
    seen: set[str] = set()
    stack = [module]
    bad = []
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        for imported in _imports(current, top_level=True):
            if imported in MODULES:
                if MODULES[imported].name != "__init__.py":
                    stack.append(imported)
            elif imported.split(".")[0] in IO_MODULES or imported in IO_MODULES:
                bad.append(f"{current} imports {imported}")
    return bad


def test_pure_modules_import_no_io() -> None:
    found = {m: _io_imports(m) for m in _pure_modules()}
    assert not {m: bad for m, bad in found.items() if bad}


def _test_code() -> list[Path]:
    """The suite's own Python: not the linter's corpus (data it reads) and not the third-party
    clients (scripts run in their own venv, importing their sibling `_common` as scripts do)."""
    return [
        path
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "corpus" not in path.parts and not path.is_relative_to(THIRDPARTY_CLIENTS)
    ]


def test_the_tests_are_one_package() -> None:
    """Every folder of the suite's code is a package, a test imports shared code by its package
    name (`tests.helpers.guardkit`), and no test edits the import path: a child process that
    needs the repository runs from its root (`cwd`, `python -m tests.<folder>.<module>`)."""
    code = _test_code()
    folders = {d for path in code for d in path.parents if d.is_relative_to(ROOT / "tests")}
    missing = sorted(str(d.relative_to(ROOT)) for d in folders if not (d / "__init__.py").is_file())
    # Names that only resolve with a test folder on the import path (`tests` itself is the root).
    local = {path.stem for path in code} | {d.name for d in folders} - {"tests", "__init__"}
    bare, path_edits = [], []
    for path in code:
        source = path.read_text("utf-8")
        tree = ast.parse(source)
        for node in _import_nodes(tree.body, top_level=False):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif not node.level and node.module:
                names = [node.module]
            bare += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
                for name in names
                if name.split(".")[0] in local
            ]
        path_edits += [
            f"{path.relative_to(ROOT)}:{n}"
            for n, line in enumerate(source.splitlines(), 1)
            if re.search(r"\bsys\.path\b", line)
        ]
    assert not missing, f"test folders without __init__.py: {missing}"
    assert not bare, f"imported by a bare name (use tests.<folder>.<module>): {bare}"
    assert not path_edits, f"the import path edited: {path_edits}"


MACHINE_PATH = re.compile(r"""["'](/work|/root|/home|/Users|/tmp/pytest-of-)[/"']""")


def test_no_machine_specific_paths() -> None:
    hits = []
    for folder in ("tests", "examples"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".sh", ".toml") or "corpus" in path.parts:
                continue
            for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if MACHINE_PATH.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, hits


def test_test_modules_leave_the_sdks_to_first_use() -> None:
    """Collecting the suite imports no SDK (seconds each): tests take them from
    tests/helpers/sdk.py, and SDK types only under `if TYPE_CHECKING:`."""
    eager = []
    for path in (ROOT / "tests").rglob("*.py"):
        if {"corpus", "benchmarks"} & set(path.parts) or path.name == "sdk.py":
            continue
        if path.is_relative_to(THIRDPARTY_CLIENTS):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in _import_nodes(tree.body, top_level=True):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if any(n.split(".")[0] in ("anthropic", "openai") for n in names):
                eager.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not eager, eager
