"""One bad file never stops the run: what cannot be analysed is a PL906 finding for that file,
special files are skipped, work per file is bounded, exit codes stay distinct, and `--report`
refuses a trace with no request in it (exit 2) and leads with a summary by cause."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.policies import engine
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_file, lint_paths
from tests.policies.lint_tracegen import anthropic_bodies, write_trace

TIME_IN_SYSTEM = (
    "import datetime\n\n\ndef build():\n    now = datetime.datetime.now()\n"
    '    system_prompt = f"It is {now}."\n    return system_prompt\n'
)


@pytest.fixture()
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(TIME_IN_SYSTEM)
    return tmp_path


def codes(result: engine.Result) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in result.findings:
        out.setdefault(Path(f.path).name, []).append(f.code)
    return out


def test_deep_json_and_long_plus_chain_are_findings_and_the_run_goes_on(proj: Path) -> None:
    (proj / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    terms = " + ".join(f'"part {i} "' for i in range(3000))
    (proj / "chain.py").write_text(f"system_prompt = {terms}\n")
    result = lint_paths([str(proj)], LintConfig(), jobs=1)
    got = codes(result)
    assert got["deep.json"] == ["PL906"]
    # The chain is either analysed (no volatile value in it) or reported as too deep.
    assert got.get("chain.py", []) in ([], ["PL906"])
    assert got["agent.py"] == ["PL101"]


def test_deep_trace_line_is_a_bad_line_not_an_abort(proj: Path) -> None:
    bodies = anthropic_bodies(2)
    path = write_trace(proj / "t.jsonl", bodies)
    with path.open("a") as fh:
        fh.write('{"body": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    found = lint_file(str(path), "trace", None)[0]
    assert any(f.code == "PL904" and "nested too deeply" in f.message for f in found)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_special_files_and_link_loops_are_skipped(proj: Path) -> None:
    os.mkfifo(proj / "pipe.md")
    (proj / "sub").mkdir()
    os.symlink(proj, proj / "sub" / "loop")  # a folder link back up: not followed
    os.symlink(proj / "b.md", proj / "a.md")
    os.symlink(proj / "a.md", proj / "b.md")  # a link loop between two files
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(proj / "s.txt"))
    except OSError:  # a path too long for AF_UNIX on some systems
        sock.close()
        sock = None  # type: ignore[assignment]
    try:
        result = lint_paths([str(proj)], LintConfig(), jobs=1)
        assert codes(result) == {"agent.py": ["PL101"]}
        assert result.files == 1
        # Named explicitly, a FIFO is reported, not opened (opening it would block).
        for special in (proj / "pipe.md", Path(os.devnull)):
            (f,) = lint_paths([str(special)], LintConfig(), jobs=1).findings
            assert f.code == "PL903" and "not a regular file" in f.message
    finally:
        if sock is not None:
            sock.close()


def test_a_file_over_its_time_budget_is_stopped(proj: Path) -> None:
    big = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(20_000))
    (proj / "big.py").write_text(big)
    # CPU time, as the budget is: under a heavy load the wall clock says nothing.
    t0 = time.process_time()
    found, _ = lint_file(str(proj / "big.py"), "python", None, time_s=0.05)
    assert time.process_time() - t0 < 5
    (f,) = found
    assert f.code == "PL906" and "over 0.05 s" in f.message


def test_a_file_dense_with_findings_is_capped(proj: Path) -> None:
    """5 MB of `{now}` placeholders: the findings stop at the cap with one PL906 saying how
    many more there were."""
    line = "It is {now} and the branch is {git_branch}; pid {pid}.\n"
    (proj / "dense.md").write_text(line * (5_000_000 // len(line)))
    found, _ = lint_file(str(proj / "dense.md"), "text", None)
    assert len(found) == engine.MAX_FINDINGS_PER_FILE + 1
    assert found[-1].code == "PL906" and "more findings not shown" in found[-1].message


def test_exit_codes(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "clean").mkdir()
    (proj / "clean" / "ok.md").write_text("You are a careful assistant.\n")
    assert main(["lint", "clean"]) == 0
    assert main(["lint", "agent.py"]) == 1
    assert main(["lint", "missing.py"]) == 2
    assert main(["lint", "agent.py", "--select", "PL999"]) == 2
    capsys.readouterr()


@pytest.mark.parametrize(
    "content, words",
    [
        (b"", "empty trace"),
        (b"\n\n", "empty trace"),
        (b"not json at all\nstill not\n", "no request records (2 unreadable line(s)"),
        (b'{"a": 1}\n', "no request records (1 unreadable line(s)"),
        (b"\x00\x01\x02binary", "binary file"),
    ],
)
def test_report_on_a_trace_without_requests_is_an_input_error(
    proj: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    (proj / "t.jsonl").write_bytes(content)
    assert main(["lint", "--report", "t.jsonl"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("prefixlock: error: t.jsonl") and "\n" not in err
    assert words in err


def test_report_on_a_folder_or_unreadable_file_is_an_input_error(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--report", str(proj)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    if os.geteuid() != 0:  # root reads anything
        p = write_trace(proj / "t.jsonl", anthropic_bodies(2))
        p.chmod(0)
        assert main(["lint", "--report", str(p)]) == 2
        assert "cannot read trace" in capsys.readouterr().err


def test_report_leads_with_a_summary_by_cause(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A naive trace (the date in the system prompt changes every request) is one summary
    line per cause, then one line per run of the same cause, not one per request."""

    def drift(t: int, body: dict[str, object], rec: dict[str, object]) -> None:
        body["system"] = [
            {
                "type": "text",
                "text": f"Today is day {t}. " + "Rules. " * 800,
                "cache_control": {"type": "ephemeral"},
            }
        ]
        if t == 7:
            body["model"] = "claude-haiku-4-5"

    p = write_trace(proj / "t.jsonl", anthropic_bodies(30, mutate=drift))
    assert main(["lint", "--report", str(p)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("summary: 30 request(s) in 1 session(s), 29 cache break(s)")
    causes = [line.split(":")[0].strip() for line in out[1:3]]
    assert sorted(causes) == ["model changed", "system prompt changed"]
    assert out[3].startswith("trace ")
    assert any(line.startswith("  ... and ") for line in out)
    assert len(out) < 15
    # JSON keeps the per-request detail.
    assert main(["lint", "--report", str(p), "--format", "json"]) == 0
    (rep,) = json.loads(capsys.readouterr().out)
    assert len(rep["sessions"][0]["breaks"]) == 29


def test_a_large_python_module_is_not_parsed(proj: Path) -> None:
    """A syntax tree costs ~140 bytes per byte of source, built in one uninterruptible call:
    a 5 MB generated module is one PL906, quickly and without the memory."""
    lines = "".join(
        f'system_prompt_{i} = f"It is {{datetime.datetime.now()}}"\n' for i in range(100_000)
    )
    (proj / "gen.py").write_text("import datetime\n" + lines)
    t0 = time.perf_counter()
    (f,) = lint_file(str(proj / "gen.py"), "python", None)[0]
    assert f.code == "PL906" and "not analysed" in f.message
    assert time.perf_counter() - t0 < 2


def test_the_time_budget_firing_in_a_finalizer_prints_nothing() -> None:
    # The timer's exception raised inside a finalizer is lost (Python reports it through
    # sys.unraisablehook as "Exception ignored in ..."); the timer fires again and stops the
    # analysis, and the lost one is not printed.
    seen: list[object] = []
    before = sys.unraisablehook
    sys.unraisablehook = seen.append

    class Slow:
        def __del__(self) -> None:
            end = time.perf_counter() + 0.3
            while time.perf_counter() < end:
                pass

    try:
        with pytest.raises(engine._Timeout), engine._time_limit(0.05):
            Slow()  # dropped at once: the busy finalizer runs while the timer fires
            end = time.perf_counter() + 5
            while time.perf_counter() < end:
                pass
    finally:
        sys.unraisablehook = before
    assert seen == []


def test_a_crash_on_one_file_is_a_finding_and_the_run_goes_on(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (proj / "odd.ts").write_text("export const SYSTEM = `hi`;\n")

    def crash(*_: object, **__: object) -> None:
        raise AttributeError("'NoneType' object has no attribute 'type'")

    monkeypatch.setattr(engine, "check_js", crash)
    result = lint_paths([str(proj)], LintConfig(), jobs=1)
    got = {Path(f.path).name: f for f in result.findings}
    assert got["odd.ts"].code == "PL906"
    assert "failed on this file (AttributeError" in got["odd.ts"].message
    assert got["agent.py"].code == "PL101"


def test_a_method_that_calls_itself_with_state_another_method_sets_is_read(proj: Path) -> None:
    # Evaluating a sink's argument summarised a method that added to the parameter sinks being
    # walked (the queued message re-sent by recursion): the file was a PL906, unread.
    (proj / "tui.py").write_text(
        "class Chat(App):\n"
        "    async def submitted(self, event):\n"
        "        text = event.value.strip()\n"
        "        if self.busy:\n"
        "            self.queued.append(text)\n"
        "    @work(thread=True)\n"
        "    def process(self, text):\n"
        "        try:\n"
        "            context = prompts.build(self.state.get('repo', self.cwd), agent)\n"
        "            messages = [{'role': 'system', 'content': context}]\n"
        "        finally:\n"
        "            if self.queued:\n"
        "                self.process(self.queued.pop(0))\n"
        "    async def slash(self, text, out):\n"
        "        if text.startswith('/agent '):\n"
        "            self.state['agent'] = text.split(None, 1)[1].strip()\n"
    )
    result = lint_paths([str(proj / "tui.py")], LintConfig())
    assert "PL906" not in codes(result).get("tui.py", [])
