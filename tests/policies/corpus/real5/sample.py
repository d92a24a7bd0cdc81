"""Select real5's files by the grep rule in PROCEDURE.md and write MANIFEST.tsv.

    python tests/policies/corpus/real5/sample.py [--mirror DIR] [--stratum 2|3|4]

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
    "sst/opencode", "srcbookdev/srcbook", "di-sukharev/opencommit", "Nutlope/aicommits",
    "bytedance/UI-TARS-desktop", "danny-avila/LibreChat", "lobehub/lobe-chat", "janhq/jan",
    "ztjhz/BetterChatGPT", "n4ze3m/page-assist", "mastra-ai/mastra", "langchain-ai/langchainjs",
    "ax-llm/ax", "transitive-bullshit/agentic", "firebase/genkit", "vercel/ai", "elizaOS/eliza",
    "KaibanJS/KaibanJS", "CopilotKit/CopilotKit", "nickscamara/open-deep-research",
    "developersdigest/llm-answer-engine", "Nutlope/turboseek", "run-llama/create-llama",
    "web-infra-dev/midscene",
]  # fmt: skip
# Taken in order, each when fetched and matching, until TS >= PY and TS + PY >= 40 (amendments).
TS_RESERVES = [
    "langchain-ai/deepagentsjs", "FellouAI/eko", "microsoft/TypeChat", "dyad-sh/dyad",
    "openai/openai-realtime-console", "cogentapps/chat-with-gpt",
    "langchain-ai/open-agent-platform", "magnitudedev/magnitude", "supermemoryai/supermemory",
    "langchain-ai/chat-langchainjs",
]  # fmt: skip
PY = [
    "smol-ai/developer", "qodo-ai/cover-agent", "sweepai/sweep", "nus-apr/auto-code-rover",
    "letta-ai/letta", "deepset-ai/haystack", "stanfordnlp/dspy", "openai/swarm",
    "MervinPraison/PraisonAI", "langroid/langroid", "strands-agents/sdk-python",
    "Josh-XT/AGiXT", "camel-ai/owl", "QuivrHQ/quivr", "arc53/DocsGPT", "zylon-ai/private-gpt",
    "langchain-ai/opengpts", "langchain-ai/local-deep-researcher", "lavague-ai/LaVague",
    "simular-ai/Agent-S", "MineDojo/Voyager", "Fosowl/agenticSeek", "pipecat-ai/pipecat",
    "livekit/agents",
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
    r"|randomUUID|uuid4|Math\.random|execSync|spawnSync|check_output|os\.hostname"
    r"|getpass\.getuser|os\.userInfo|time\.time\(|dayjs\(|moment\("
)
NEAR = (
    r"(current|today'?s?|now)[ _-]?(date|time)|git status|working directory|messages\.slice\("
    r"|messages\[-|history\[-|\.splice\(0|max_?history|trim_?messages"
)
DATETEXT = (
    r"(current|today'?s?)[ _-]?(date|time)|date (is|:)"
    r"|\{(current_?)?(date|time|datetime|today|now)\}|\$\{(today|date|now|currentdate|currenttime)"
)
MAX_LINES = 500
MIN_PROJECTS = 40
PER_PROJECT = {1: 1, 2: 2, 3: 1, 4: 2}


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
    p.add_argument("--stratum", type=int, choices=(1, 2, 3, 4), default=1)
    a = p.parse_args()
    manifest = HERE / "MANIFEST.tsv"
    before: list[list[str]] = []
    if a.stratum > 1:
        lines = manifest.read_text(encoding="utf-8").splitlines()[1:]
        before = [ln.split("\t") for ln in lines if int(ln.split("\t")[-1]) < a.stratum]
    taken_paths = {(r[1], r[2]) for r in before}
    halves_before = {r[1]: r[8] for r in before}
    rows: list[list[str]] = []
    skipped: list[str] = []

    def draw(name: str, lang: str) -> list[tuple[str, str, str, list[str]]]:
        repo = Path(a.mirror) / name.replace("/", "+") / "repo"
        if not repo.is_dir():
            skipped.append(f"{name}: no snapshot")
            return []
        commit = git(repo, "rev-parse", "HEAD").decode().strip()
        paths = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
        prompt = git_grep(repo, commit, PROMPT)
        call = git_grep(repo, commit, {1: CALL, 2: VOLATILE, 3: NEAR, 4: DATETEXT}[a.stratum])
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
            return []
        scored.sort()
        lic = licence(repo, commit, paths)
        return [
            (name, path, commit, [lic, str(n_lines), str(-neg), str(rank)])
            for rank, (neg, path, n_lines) in enumerate(scored[: PER_PROJECT[a.stratum]], 1)
        ]

    used = set(halves_before)  # stratum 2 draws from stratum 1's projects only
    py_taken = [t for n in PY if a.stratum == 1 or n in used for t in draw(n, "py")]
    ts_taken = [t for n in TS if a.stratum == 1 or n in used for t in draw(n, "ts")]
    n_py = len({t[0] for t in py_taken})
    for name in TS_RESERVES:
        n_ts = len({t[0] for t in ts_taken})
        if a.stratum == 1 and n_ts >= n_py and n_ts + n_py >= MIN_PROJECTS:
            break
        if a.stratum == 1 or name in used:
            ts_taken += draw(name, "ts")
    for lang, taken in (("ts", ts_taken), ("py", py_taken)):
        halves = split(sorted({t[0] for t in taken}))
        halves.update(halves_before)  # stratum 2 keeps each project's half
        for name, path, commit, (lic, n_lines, score, rank) in taken:
            row = [lang, name, path, commit, lic, n_lines, score, rank, halves[name]]
            rows.append([*row, str(a.stratum)])
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write("lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\n")
        for r in before + rows:
            fh.write("\t".join(r) + "\n")
    skips = HERE / ("SKIPPED.txt" if a.stratum == 1 else f"SKIPPED-{a.stratum}.txt")
    skips.write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
