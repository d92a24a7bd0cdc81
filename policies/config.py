"""Linter configuration: `[tool.prefixlock.lint]` in pyproject.toml, merged with CLI flags.

Keys: select, ignore, extend-select, per-file-ignores ({glob: [codes]}), exclude (globs), model,
provider, baseline. Unknown keys and bad values are configuration errors (exit 2), named by file
and key.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from prefixlock.errors import ConfigError
from prefixlock.userfiles import read_user_text

from .rules import RULES, is_known_selector, matches

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "build",
    "dist",
    "*.egg-info",
)

# --provider: which wire format an ambiguous raw request body is read as.
PROVIDERS = ("anthropic", "openai", "openai-responses", "openai-compat", "deepseek")

_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "model",
    "provider",
    "baseline",
}


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    model: str | None = None
    provider: str | None = None
    baseline: str | None = None
    root: str = "."
    source: str | None = None  # the pyproject.toml it came from
    extra: Mapping[str, Any] = field(default_factory=dict)

    def enabled(self, code: str, path: str | None = None) -> bool:
        if not matches(code, self.select) or matches(code, self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            rel = _relative(path, self.root)
            for pattern, codes in self.per_file_ignores:
                if _glob_match(rel, pattern) and matches(code, codes):
                    return False
        return True

    def excluded(self, path: Path, below: Path | None = None) -> bool:
        """Whether a walked path is excluded. Folder names are matched only in `below` (the
        part under the path the user gave); globs against the path relative to the root."""
        parts = (below if below is not None else path).parts
        for pattern in (*DEFAULT_EXCLUDE, *self.exclude):
            if any(fnmatch.fnmatch(part, pattern) for part in parts):
                return True
            if _glob_match(_relative(str(path), self.root), pattern):
                return True
        return False

    def with_overrides(
        self,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        extend_select: Sequence[str] | None = None,
        model: str | None = None,
        provider: str | None = None,
    ) -> LintConfig:
        new = self
        if select:
            new = replace(new, select=_codes(select, "--select"))
        if extend_select:
            new = replace(new, select=(*new.select, *_codes(extend_select, "--extend-select")))
        if ignore:
            new = replace(new, ignore=(*new.ignore, *_codes(ignore, "--ignore")))
        if model:
            new = replace(new, model=model)
        if provider:
            new = replace(new, provider=provider)
        return new


def _relative(path: str, root: str) -> str:
    try:
        rel = Path(path).resolve().relative_to(Path(root).resolve())
        return PurePosixPath(rel).as_posix()
    except ValueError:
        return PurePosixPath(Path(path)).as_posix()


def _glob_match(rel: str, pattern: str) -> bool:
    if fnmatch.fnmatch(rel, pattern):
        return True
    # "dir/**" and "**/name" forms as ruff users write them.
    if pattern.endswith("/**") and (rel + "/").startswith(pattern[:-2]):
        return True
    return pattern.startswith("**/") and fnmatch.fnmatch(rel, pattern[3:])


def _codes(values: Sequence[str] | Any, where: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ConfigError("expected a list of rule codes", where=where)
    out: list[str] = []
    for v in values:
        for part in str(v).split(","):
            part = part.strip().upper()
            if not part:
                continue
            if not is_known_selector(part):
                raise ConfigError(
                    f"unknown rule code {part!r} (see `prefixlock lint --list-rules`)", where=where
                )
            out.append(part)
    return tuple(out)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError("expected a non-empty string", where=where)
    return value


def from_table(table: Mapping[str, Any], source: str, root: str) -> LintConfig:
    """Build a config from the `[tool.prefixlock.lint]` table."""
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})",
            where=f"{source}: [tool.prefixlock.lint]",
        )
    where = f"{source}: [tool.prefixlock.lint]."
    cfg = LintConfig(root=root, source=source)
    if "select" in table:
        cfg = replace(cfg, select=_codes(table["select"], where + "select"))
    if "extend-select" in table:
        extra = _codes(table["extend-select"], where + "extend-select")
        cfg = replace(cfg, select=(*cfg.select, *extra))
    if "ignore" in table:
        cfg = replace(cfg, ignore=_codes(table["ignore"], where + "ignore"))
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, Mapping):
            raise ConfigError(
                "expected a table of glob = [codes]", where=where + "per-file-ignores"
            )
        cfg = replace(
            cfg,
            per_file_ignores=tuple(
                (str(k), _codes(v, f"{where}per-file-ignores.{k}")) for k, v in pfi.items()
            ),
        )
    if "exclude" in table:
        ex = table["exclude"]
        if not isinstance(ex, list) or not all(isinstance(x, str) for x in ex):
            raise ConfigError("expected a list of globs", where=where + "exclude")
        cfg = replace(cfg, exclude=tuple(ex))
    if "model" in table:
        cfg = replace(cfg, model=_string(table["model"], where + "model"))
    if "provider" in table:
        provider = _string(table["provider"], where + "provider")
        if provider not in PROVIDERS:
            raise ConfigError(
                f"unknown provider {provider!r} (one of {', '.join(PROVIDERS)})",
                where=where + "provider",
            )
        cfg = replace(cfg, provider=provider)
    if "baseline" in table:
        base = _string(table["baseline"], where + "baseline")
        cfg = replace(cfg, baseline=str(Path(root) / base))
    return cfg


def load_file(path: Path) -> LintConfig:
    text = read_user_text(path, "config")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", where=str(path)) from None
    table = data.get("tool", {}).get("prefixlock", {}).get("lint", {})
    if not isinstance(table, Mapping):
        raise ConfigError("[tool.prefixlock.lint] must be a table", where=str(path))
    return from_table(table, str(path), str(path.parent))


def discover(start: Path) -> LintConfig:
    """The config of the nearest pyproject.toml at or above `start` that has our table."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for d in (here, *here.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return load_file(candidate)  # raises the clear error
            if "lint" in data.get("tool", {}).get("prefixlock", {}):
                return load_file(candidate)
    return LintConfig(root=str(Path.cwd()))


def all_codes() -> list[str]:
    return sorted(RULES)
