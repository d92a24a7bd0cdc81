"""The corpora's shared scorer (tests/policies/corpus/realscore.py) on a tiny project made here:
`extract` writes the sampled file's project around it (its sibling module, its package.json,
not its node_modules) and replaces what an earlier run wrote otherwise; `score` lints the
sampled file with that project in view and counts findings only in the sampled file."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from prefixlock.policies.collapse import collapse
from prefixlock.policies.findings import Finding

_CORPUS = Path(__file__).parent / "corpus"

# The sampled file sends a system prompt built in its sibling module with the kept history:
# the clock in it is visible only with the sibling around the file.
_AGENT = """import Anthropic from "@anthropic-ai/sdk";
import { systemPrompt } from "./prompt";
const client = new Anthropic();
const history: { role: "user" | "assistant"; content: string }[] = [];
export async function reply(text: string) {
  history.push({ role: "user", content: text });
  return client.messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 256,
    system: systemPrompt(),
    messages: history,
  });
}
"""
_PROMPT = """export function systemPrompt(): string {
  return `You are a helpful assistant. The time is ${new Date().toISOString()}.`;
}
"""
# An unsampled file with a breaker of its own: linted, it would be a finding.
_OTHER = _AGENT.replace('import { systemPrompt } from "./prompt";\n', "").replace(
    "system: systemPrompt(),", "system: `Now: ${new Date().toISOString()}`,"
)


def _realscore() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realscore", _CORPUS / "realscore.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _git(*args: str, cwd: Path) -> str:
    run = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.strip()


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[ModuleType, object, Path]:
    """A corpus folder sampling src/agent.ts of a project whose bare clone is in a mirror."""
    work = tmp_path / "work"
    for path, text in {
        "package.json": '{"name": "tiny"}\n',
        "src/agent.ts": _AGENT,
        "src/prompt.ts": _PROMPT,
        "src/other.ts": _OTHER,
        "node_modules/dep/index.js": "module.exports = 1;\n",
        "README.md": "tiny\n",
    }.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    _git("init", "-q", cwd=work)
    _git("add", "-A", "-f", cwd=work)
    _git("commit", "-q", "-m", "tiny", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    _git("clone", "-q", "--bare", str(work), str(mirror / "o+tiny" / "repo"), cwd=tmp_path)
    here = tmp_path / "realX"
    here.mkdir()
    (here / "MANIFEST.tsv").write_text(
        "lang\trepo\tpath\tcommit\thalf\n" + f"ts\to/tiny\tsrc/agent.ts\t{commit}\tdev\n",
        encoding="utf-8",
    )
    (here / "labels.toml").write_text("", encoding="utf-8")
    (here / "findings.toml").write_text("", encoding="utf-8")
    rs = _realscore()
    return rs, rs.Corpus(here), mirror


def test_extract_writes_the_sampled_files_project_and_replaces_an_earlier_run(
    corpus: tuple[ModuleType, object, Path],
) -> None:
    rs, c, mirror = corpus
    root = c.files / "ts" / "o+tiny"  # type: ignore[attr-defined]
    (root / "stale.ts").parent.mkdir(parents=True)
    (root / "stale.ts").write_text("left by an earlier run", encoding="utf-8")
    assert rs.extract(c, mirror) == 0
    assert (root / "src" / "agent.ts").read_text(encoding="utf-8") == _AGENT
    assert (root / "src" / "prompt.ts").read_text(encoding="utf-8") == _PROMPT
    assert (root / "package.json").is_file()
    assert (root / ".git").is_dir()  # the project's root, as a checkout marks it
    assert not (root / "node_modules").exists()
    assert not (root / "README.md").exists()  # no file the linter reads around a script
    assert not (root / "stale.ts").exists()


def test_a_project_written_the_same_way_is_left_alone(
    corpus: tuple[ModuleType, object, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a parallel worker may be linting it: a second run that would write the same deletes
    # nothing; one that would write otherwise (here, other bounds) replaces the folder
    rs, c, mirror = corpus
    root = c.files / "ts" / "o+tiny"  # type: ignore[attr-defined]
    rs.extract(c, mirror)
    (root / "mine.ts").write_text("a worker's file", encoding="utf-8")
    rs.extract(c, mirror)
    assert (root / "mine.ts").is_file()
    monkeypatch.setattr(rs, "PROJECT_FILES_CAP", 1000)
    rs.extract(c, mirror)
    assert not (root / "mine.ts").exists()
    assert (root / "src" / "prompt.ts").is_file()


def test_a_project_over_the_bounds_gets_its_sampled_files_only(
    corpus: tuple[ModuleType, object, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rs, c, mirror = corpus
    monkeypatch.setattr(rs, "PROJECT_FILES_CAP", 2)
    assert rs.extract(c, mirror) == 0
    root = c.files / "ts" / "o+tiny"  # type: ignore[attr-defined]
    assert (root / "src" / "agent.ts").is_file()
    assert not (root / "src" / "prompt.ts").exists()
    assert "its sampled files only: o/tiny" in capsys.readouterr().err


def test_score_sees_the_project_but_counts_findings_only_in_sampled_files(
    corpus: tuple[ModuleType, object, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rs, c, mirror = corpus
    rs.extract(c, mirror)
    assert rs.score(c, "dev") == 1  # the sampled file's finding is not yet judged
    out = capsys.readouterr().out
    found = [ln for ln in out.splitlines() if ln.startswith("UNLABELLED")]
    # the clock comes from the sibling module: found only with the project around the file
    assert found and all("o/tiny/src/agent.ts:" in ln for ln in found), out
    assert "prompt.ts" in found[0]
    assert "other.ts" not in out


def test_a_collapsed_finding_without_a_named_value_is_scored_at_all_its_lines() -> None:
    """One value collapsed into one finding (`policies/collapse.py`): where its message names
    the value's line, that line; else every line it stands for (each was a finding before)."""
    extra: dict[str, object] = {
        "origin": {"path": "a.ts", "line": 2, "what": "readdirSync(d)"},
        "sink": {"path": "a.ts", "line": 30, "name": "`system`"},
    }
    found = [Finding("a.ts", n, 1, "PL203", f"m{n}", extra=extra) for n in (9, 12)]
    (f,) = collapse(found)
    assert _realscore().lines_of(f) == {9, 12}
    named = Finding("a.ts", 9, 1, "PL102", "x is a date value (new Date(), line 2) that reaches y")
    assert _realscore().lines_of(named) == {2}
