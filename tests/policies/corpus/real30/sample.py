"""Select real30's files by the rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt.

real30 samples by the project's manifest: each listed name was found by a code search over
manifests, and the draw keeps it only if one of its `package.json`, `pyproject.toml` or
`requirements*.txt` files declares a model SDK or agent framework. Stratum 1 is the file that
calls the SDK's request function on most lines; stratum 2 is at most two files it imports that
match real10's prompt, request, volatile or date patterns (real28's import strata, imported).
Template copies, tutorials and projects with no conversation are skipped by real28's rules.
Everything else (language, quotas, split, volatile and reserve steps) is the shared
`../realsample.py` draw, through real24's command line:

    python tests/policies/corpus/real30/sample.py --upto K [--quota N]            # first draw
    python tests/policies/corpus/real30/sample.py --next --upto F --volatile 8    # block 3
    python tests/policies/corpus/real30/sample.py --upto K --volatile 8           # blocks 1-2
    python tests/policies/corpus/real30/sample.py --upto K --more 4               # fill

It never reads a file's meaning, only manifests' dependency names, import lines and counts of
matching lines.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

R28 = rs.sibling(HERE, "real28")

#: projects a language in the first draw (PROCEDURE.md: "Taking projects")
QUOTA = 16
#: stratum-2 files a project at most
IMPORTS = 2
#: names sharing a template key that the draw reads at most
PER_TEMPLATE = 3

#: the SDK request calls that pick stratum 1 (PROCEDURE.md: "Selection of files")
SDKCALL = (
    r"messages\.(create|stream)\(|completions\.create|responses\.create|streamText|generateText"
    r"|streamObject|generateObject|acompletion|litellm\.completion|ollama\.chat|\.chat\(\{"
    r"|generateContent|generate_content|\.a?invoke\(|\.a?stream\(|Runner\.run|\.run_stream\("
)
NPM_SDKS = {
    "@anthropic-ai/sdk", "openai", "ai", "langchain", "ollama", "@google/generative-ai",
    "@google/genai", "@mistralai/mistralai", "groq-sdk", "@openai/agents", "cohere-ai",
    "llamaindex",
}  # fmt: skip
NPM_SCOPES = ("@ai-sdk/", "@langchain/")
PY_SDKS = {
    "anthropic", "openai", "litellm", "langchain", "langgraph", "pydantic-ai",
    "pydantic-ai-slim", "openai-agents", "google-adk", "google-generativeai", "google-genai",
    "ollama", "groq", "mistralai", "cohere", "llama-index", "crewai", "autogen-agentchat",
    "smolagents",
}  # fmt: skip
PY_PREFIXES = ("langchain-", "llama-index-")
PY_NAME = re.compile(r"""(?:^\s*|["'])([A-Za-z0-9][A-Za-z0-9._-]*)""", re.M)
MIRROR = Path("/work/.mirror")


def manifests(snap: rs.Snapshot) -> list[str]:
    """The snapshot's manifests, outside the folders real6's rule skips."""
    out = []
    for p in snap.paths():
        parts = p.split("/")
        name = parts[-1]
        if rs.SKIP_DIRS & set(parts[:-1]):
            continue
        if name in ("package.json", "pyproject.toml") or re.fullmatch(r"requirements.*\.txt", name):
            out.append(p)
    return out


def npm_declares(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        deps = data.get(key)
        if isinstance(deps, dict):
            for dep in deps:
                if dep in NPM_SDKS or dep.startswith(NPM_SCOPES):
                    return True
    return False


def py_declares(text: str) -> bool:
    for m in PY_NAME.finditer(text):
        dep = m.group(1).lower().replace("_", "-")
        if dep in PY_SDKS or dep.startswith(PY_PREFIXES):
            return True
    return False


def declares_sdk(snap: rs.Snapshot) -> bool:
    for p in manifests(snap):
        text = snap.text(p)
        if (npm_declares if p.endswith(".json") else py_declares)(text):
            return True
    return False


@functools.lru_cache(maxsize=1)
def template_copies() -> dict[str, str]:
    """real28's template copies over real30's list."""
    return R28.copies_in(HERE, MIRROR)


class ManifestDraw(rs.Draw):
    """real30's draw: the file calling the SDK most, and the files it imports that build the
    request."""

    def draw(
        self,
        snap: rs.Snapshot,
        lang: str,
        strata: dict[int, tuple[rs.Scorer, int]] | None = None,
    ) -> tuple[list[list[str]], str | None]:
        copy = template_copies().get(snap.name)
        if copy is not None:
            return [], f"template copy ({copy})"
        if R28.TUTORIAL.search(snap.name) or R28.TUTORIAL.search(R28.readme_line(snap)):
            return [], "tutorial or course"
        if not declares_sdk(snap):
            return [], "no SDK in manifest"
        talk = [p for p in snap.grep(R28.CONVERSATION) if rs.eligible(p, lang)]
        if not talk:
            return [], "no conversation"
        calls = sorted((-n, p) for p, n in snap.grep(SDKCALL).items() if n and rs.eligible(p, lang))
        at, text = "", ""
        for _, path in calls:
            body = snap.text(path)
            if len(body.splitlines()) <= rs.MAX_LINES:
                at, text = path, body
                break
        if not at:
            return [], "no request call"
        return R28.drawn_rows(snap, at, text, lang), None


class NextManifestDraw(ManifestDraw, rs.sibling(HERE, "real21").NextDraw):  # type: ignore[misc]
    """The same draw over block 3 (the `next-N` rows) alone."""


STRATA: dict[int, tuple[rs.Scorer, int]] = {1: (lambda s: {}, 1), 2: (lambda s: {}, IMPORTS)}


def main(argv: list[str]) -> int:
    global MIRROR
    if "--mirror" in argv:
        MIRROR = Path(argv[argv.index("--mirror") + 1])
    return int(R28.role_main(HERE, argv, ManifestDraw, NextManifestDraw))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
