"""Select real4's files by the grep rule in PROCEDURE.md and write MANIFEST.tsv.

    python tests/policies/corpus/real4/sample.py [--mirror DIR] [--stratum 2]

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD; never reads a
file's meaning, only counts the lines that match the rule's two patterns.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
TS = [
    "miurla/morphic", "ItzCrazyKns/Perplexica", "zaidmukaddam/scira", "huggingface/chat-ui",
    "Chanzhaoyu/chatgpt-web", "josStorer/chatGPTBox", "anse-app/anse",
    "vercel-labs/gemini-chatbot", "assistant-ui/assistant-ui", "Nutlope/llamacoder",
    "tldraw/make-real", "BuilderIO/micro-agent", "CodebuffAI/codebuff", "twinnydotdev/twinny",
    "sourcegraph/cody", "microsoft/genaiscript", "steven-tey/novel", "openai/openai-agents-js",
    "inngest/agent-kit", "VoltAgent/voltagent", "langchain-ai/langgraphjs",
    "run-llama/LlamaIndexTS", "langchain-ai/social-media-agent", "openai/openai-realtime-agents",
]  # fmt: skip
PY = [
    "pydantic/pydantic-ai", "openai/openai-agents-python", "google/adk-python",
    "microsoft/autogen", "langchain-ai/langgraph", "agno-agi/agno", "kyegomez/swarms",
    "Upsonic/Upsonic", "run-llama/llama_index", "langchain-ai/open_deep_research",
    "bytedance/deer-flow", "stanford-oval/storm", "FoundationAgents/OpenManus", "kortix-ai/suna",
    "SakanaAI/AI-Scientist", "joonspk-research/generative_agents",
    "langchain-ai/executive-ai-assistant", "mem0ai/mem0", "TheR1D/shell_gpt", "simonw/llm",
    "vanna-ai/vanna", "OpenAutoCoder/Agentless", "abi/screenshot-to-code", "browser-use/web-ui",
    "microsoft/magentic-ui",
]  # fmt: skip
EXT = {"ts": (".ts", ".tsx", ".js", ".mjs", ".cjs"), "py": (".py",)}
SKIP_DIRS = {
    "node_modules", "dist", "build", "out", "vendor", "test", "tests", "__tests__", "e2e",
    "fixtures", "examples", "example", "docs", "evals", "eval", "benchmarks", "locales", "i18n",
    "cookbook", "notebooks",
}  # fmt: skip
PROMPT = (
    r"system_?prompt|system prompt|systemmessage|role[\"']?\s*[:=]\s*[\"']system"
    r"|instructions?\s*[:=]"
)
CALL = (
    r"messages\.create|completions\.create|streamtext|generatetext|streamobject|generateobject"
    r"|acompletion|litellm\.completion|\.a?invoke\(|\.a?run\(|messages\.(push|append)"
    r"|role[\"']?\s*[:=]\s*[\"'](user|assistant)"
)
VOLATILE = (
    r"new Date\(|Date\.now\(|datetime\.(now|utcnow|today)|date\.today|strftime|toISOString"
    r"|toLocale(Date|Time)?String|process\.cwd|os\.getcwd|Path\.cwd|getcwd"
    r"|git (status|diff|log|branch)|platform\.(system|platform|release)|os\.platform|os\.type\("
    r"|randomUUID|uuid4|Math\.random"
)
MAX_LINES = 700
PER_PROJECT = {1: 2, 2: 1}


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], capture_output=True, check=True
    ).stdout


def git_grep(repo: Path, commit: str, pattern: str) -> dict[str, int]:
    """Matching lines per file, counted by git grep (a line matches at most once)."""
    out = subprocess.run(
        ["git", "--git-dir", str(repo), "grep", "-c", "-i", "-E", pattern, commit],
        capture_output=True,
    ).stdout.decode("utf-8", "replace")
    counts: dict[str, int] = {}
    for line in out.splitlines():
        where, _, n = line.rpartition(":")
        counts[where.split(":", 1)[1]] = int(n)
    return counts


def eligible(path: str, lang: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(EXT[lang]) or SKIP_DIRS & set(parts[:-1]):
        return False
    if ".test." in name or ".spec." in name or name.endswith((".d.ts", ".min.js")):
        return False
    return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def licence(repo: Path, commit: str, paths: list[str]) -> str:
    for p in paths:
        if p.split(".")[0].upper() in ("LICENSE", "LICENCE", "COPYING") and "/" not in p:
            text = git(repo, "show", f"{commit}:{p}").decode("utf-8", "replace")
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            return first[:60]
    return "none found"


def half(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "test"


def split(names: list[str]) -> dict[str, str]:
    halves = {n: half(n) for n in names}
    while True:
        dev = [n for n in names if halves[n] == "dev"]
        test = [n for n in names if halves[n] == "test"]
        if abs(len(dev) - len(test)) <= 1:
            return halves
        big = dev if len(dev) > len(test) else test
        top = max(big, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        halves[top] = "test" if halves[top] == "dev" else "dev"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--stratum", type=int, choices=(1, 2), default=1)
    a = p.parse_args()
    manifest = HERE / "MANIFEST.tsv"
    before: list[list[str]] = []
    if a.stratum == 2:
        lines = manifest.read_text(encoding="utf-8").splitlines()[1:]
        before = [ln.split("\t") for ln in lines if ln.split("\t")[-1] == "1"]
    taken_paths = {(r[1], r[2]) for r in before}
    halves_before = {r[1]: r[8] for r in before}
    rows: list[list[str]] = []
    skipped: list[str] = []
    for lang, names in (("ts", TS), ("py", PY)):
        taken: list[tuple[str, str, str, list[str]]] = []
        for name in names:
            repo = Path(a.mirror) / name.replace("/", "+") / "repo"
            if not repo.is_dir():
                skipped.append(f"{name}: no snapshot")
                continue
            commit = git(repo, "rev-parse", "HEAD").decode().strip()
            paths = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
            prompt = git_grep(repo, commit, PROMPT)
            call = git_grep(repo, commit, VOLATILE if a.stratum == 2 else CALL)
            scored: list[tuple[int, str, int]] = []
            for path in prompt.keys() & call.keys():
                if not eligible(path, lang) or (name, path) in taken_paths:
                    continue
                text = git(repo, "show", f"{commit}:{path}").decode("utf-8", "replace")
                n_lines = len(text.splitlines())
                if n_lines <= MAX_LINES:
                    scored.append((-(prompt[path] + call[path]), path, n_lines))
            if not scored:
                skipped.append(f"{name}: no matching file")
                continue
            scored.sort()
            lic = licence(repo, commit, paths)
            for rank, (neg, path, n_lines) in enumerate(scored[: PER_PROJECT[a.stratum]], 1):
                taken.append((name, path, commit, [lic, str(n_lines), str(-neg), str(rank)]))
        halves = split(sorted({t[0] for t in taken}))
        halves.update(halves_before)  # stratum 2 keeps each project's half
        for name, path, commit, (lic, n_lines, score, rank) in taken:
            row = [lang, name, path, commit, lic, n_lines, score, rank, halves[name]]
            rows.append([*row, str(a.stratum)])
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write("lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\n")
        for r in before + rows:
            fh.write("\t".join(r) + "\n")
    skips = HERE / ("SKIPPED.txt" if a.stratum == 1 else "SKIPPED-2.txt")
    skips.write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
