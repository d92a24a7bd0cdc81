"""What a name means: an identifier split into words, matched against the concepts of values
that change between requests (a clock reading, a date, a random id, VCS state, a file listing,
runtime statistics).

Names are read by their words, not matched whole against a list: `current_date_time`,
`today_str`, `timestamp_utc`, `utcNow`, `iso-date`, `current_branch`, `repo_tree` and
`cwd_listing` all mean something volatile, while `time_limit`, `date_format`, `update`,
`timeout` and `tree_sitter` do not. Pure: strings in, a kind out.
"""

from __future__ import annotations

import functools
import itertools
import re

_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# The rule each kind of volatile value is reported under, in every checker (Python, TypeScript,
# prompt text); a checker adds its own kinds (ordering, retrieved content) to a copy.
VOLATILE_CODES = {
    "time": "PL101",
    "date": "PL102",
    "random": "PL103",
    "vcs": "PL104",
    "filetree": "PL105",
    "runtime": "PL106",
}

# Words that turn a volatile-sounding name into a setting about it (`time_limit`, `date_format`)
# or into something else entirely (`commit_message_style`).
_SETTING = frozenset(
    {
        "limit",
        "limits",
        "out",
        "budget",
        "zone",
        "tz",
        "format",
        "fmt",
        "formats",
        "pattern",
        "style",
        "locale",
        "type",
        "types",
        "field",
        "fields",
        "column",
        "key",
        "keys",
        "label",
        "max",
        "min",
        "maximum",
        "minimum",
        "unit",
        "units",
        "parser",
        "parse",
        "regex",
        "re",
        "template",
        "templates",
        "instructions",
        "instruction",
        "guidelines",
        "rules",
        "rule",
        "convention",
        "conventions",
        "prompt",
        "prompts",
        "policy",
        "tool",
        "tools",
        "schema",
        "example",
        "examples",
        "sitter",
        "sep",
        "separator",
        "delay",
        "window",
        "ttl",
        "seconds",
        "ms",
        "interval",
        "spent",
        "sleep",
        "wait",
        "range",
        "expiry",
        "expires",
        # A fixed date of a model or a thing, not today's: `KnowledgeCutOffDate`,
        # `knowledge_cutoff`, `releaseDate`, `birth_date`.
        "cutoff",
        "knowledge",
        "release",
        "birth",
        "threshold",
        "strategy",
        "enabled",
        "enable",
        "mode",
        "option",
        "options",
        "flag",
        "config",
        "setting",
        "settings",
        "path",
        "dir",
        "description",
        "desc",
        "help",
        "doc",
        "docs",
        "url",
        "hook",
        "hooks",
        "agent",
        "agents",
        "command",
        "commands",
        "skill",
        "skills",
        "id",
        "ids",
    }
)

_TIME = frozenset(
    {
        "now",
        "timestamp",
        "timestamps",
        "datetime",
        "clock",
        "utcnow",
        "ts",
        "hour",
        "hours",
        "minute",
        "minutes",
    }
)
# What may stand beside "time" in a name that still means the clock reading itself.
_TIME_DECOR = frozenset(
    {
        "current",
        "cur",
        "date",
        "utc",
        "local",
        "iso",
        "str",
        "string",
        "text",
        "formatted",
        "system",
        "now",
        "today",
        "the",
        "of",
        "day",
    }
)
# Verbs of a function that transforms or tests its argument: its name says what it works on,
# not what it reads.
_TRANSFORMS = frozenset(
    {"remove", "strip", "clean", "parse", "validate", "normalize", "sanitize", "trim", "escape"}
    | {"truncate", "is", "has", "should"}
)
_DATE = frozenset({"date", "today", "todays", "weekday", "dow"})
_RANDOM = frozenset({"uuid", "uuid4", "guid", "nonce", "random", "rand", "salt", "buster"})
_RANDOM_ID_OWNERS = frozenset(
    {
        "request",
        "trace",
        "run",
        "message",
        "msg",
        "span",
        "correlation",
        "invocation",
        "call",
        "event",
    }
)
_VCS = frozenset({"git", "branch", "commit", "commits", "sha", "diff", "vcs", "hg", "svn"})
_VCS_STATUS_OWNERS = frozenset({"repo", "repository", "working", "worktree", "workspace"})
_TREE = frozenset({"tree", "listing", "ls", "filetree", "dirtree", "directories"})
# Open browser or editor tabs (`tabs`, `openTabs`): the user opens and closes them between turns.
_TABS = frozenset({"tabs"})
_FILES = frozenset({"files", "filelist", "entries", "contents"})
_FILES_OWNERS = frozenset(
    {
        "project",
        "repo",
        "repository",
        "open",
        "workspace",
        "dir",
        "directory",
        "folder",
        "cwd",
        "changed",
        "modified",
        "recent",
        "visible",
        "current",
    }
)
# The layout of a folder or a codebase (`directory_structure`, `repo_structure`): a listing.
_LAYOUT = frozenset({"structure"})
_LAYOUT_OWNERS = frozenset({"codebase", "file", "files"})
# What a screen shows now (`screen_info`, `parsed_screen`, `screenshot_elements`): a computer-use
# agent parses the screen again at every step.
_SCREEN = frozenset({"screen", "screenshot"})
_SCREEN_PARTS = frozenset({"info", "parsed", "state", "elements", "labels", "text", "content"})
# What the user is looking at in an app's UI (`currentFolder`, `activeTab`, `selected_thread`):
# it changes as the user moves around during one chat.
_VIEWING = frozenset({"current", "active", "selected", "focused", "open", "opened"})
_VIEWED = frozenset({"folder", "filter", "thread", "tab", "view", "selection", "url"})
_RUNTIME_ALONE = frozenset({"pid", "uptime", "elapsed", "loadavg"})
_RUNTIME_PAIRS = (
    (
        {"memory", "mem", "cpu", "disk", "token", "tokens", "cost"},
        {"usage", "used", "count", "so", "total", "left", "remaining", "spent"},
    ),
    (
        {"turn", "turns", "step", "steps", "iteration", "iterations", "round"},
        {"count", "number", "num", "n", "index", "idx", "left", "remaining", "current"},
    ),
    ({"load"}, {"avg", "average"}),
    # A countdown (`remaining_time`, `time_left`): it runs down between the requests.
    ({"time"}, {"remaining", "left"}),
    # What a running system shows now (`_live_data_summary()`, `liveStats`): read again per
    # request, it changes as the system runs.
    (
        {"live"},
        {"data", "state", "stats", "status", "summary", "snapshot", "metrics", "figures"},
    ),
)


def words(name: str) -> list[str]:
    """`current_dateTime-UTC2` -> ['current', 'date', 'time', 'utc', '2']."""
    return [w.lower() for w in _SPLIT.findall(name)]


# Words of a name for one smart-home thing (`entity`, `ha_entity`, `device`, `sensorRow`),
# whose `state` field is its current state; a plural (`entities`) is a listing, not a thing.
_DEVICE_WORDS = frozenset({"entity", "device", "sensor"})


def names_device(name: str) -> bool:
    """`entity`, `haDevice`: a name for one smart-home thing whose `state` changes between
    requests (a light's on/off, a sensor's reading)."""
    return bool(set(words(name)) & _DEVICE_WORDS)


# Words of a name for a conversation's messages (`history`, `chatMessages`, `turns`).
HISTORY_WORDS = frozenset(
    {"history", "messages", "conversation", "transcript", "turns", "msgs", "chat", "session"}
)


# Words of a side task: a function or prompt named so makes a request that is not the turn
# (a summary, a title, a classification, a plan, a judgement). Both front ends' PL305.
SIDE_WORDS = frozenset(
    {"plan", "planning", "summary", "summarize", "summarise", "summarization", "summarisation"}
    | {"title", "classify", "classifier", "compress", "compact", "compaction", "condense"}
    | {"judge", "critic", "critique", "reflect", "reflection"}
)


# Words of a field that dates a record, and last words of one that names it (its storage
# key): bookkeeping, not something the record says.
_METADATA_WORDS = frozenset({"created", "updated", "timestamp", "expires"})
_IDENTITY = frozenset({"id", "ids", "key", "uuid", "uid"})


def identity_name(name: str) -> bool:
    """A name for a record's identity: `id`, `personaId`, `storageKey`, `uuid`."""
    ws = words(name)
    return bool(ws) and ws[-1] in _IDENTITY


def metadata_field(name: str) -> bool:
    """A field named for identity or bookkeeping: `id`, `messageId`, `storageKey`, `uuid`,
    `createdAt`, `timestamp`, or a measure of the prompt returned beside it (`tokenCount`)."""
    ws = words(name)
    if identity_name(name) or set(ws) & _METADATA_WORDS:
        return True
    return ws[-1:] == ["count"] and bool({"token", "tokens"} & set(ws))


@functools.lru_cache(maxsize=8192)
def kind_of_name(name: str) -> str | None:
    """The volatile kind a name means ("time", "date", "random", "vcs", "filetree",
    "runtime"), or None."""
    ws = words(name)
    if not ws:
        return None
    s = set(ws)
    if ws[0] in _TRANSFORMS:
        return None  # `removeConventionalCommitWord(msg)`: works on its argument, reads nothing
    setting = bool(s & _SETTING)
    if "id" in s and s & _RANDOM_ID_OWNERS:
        return "random"
    if setting:
        return None
    if s & _TIME or ("time" in s and s - {"time"} <= _TIME_DECOR):
        return "time"
    if s & _DATE:
        return "date"
    if s & _RANDOM:
        return "random"
    if s & _VCS or ("status" in s and s & _VCS_STATUS_OWNERS):
        return "vcs"
    if (
        s & _TREE
        or s & _TABS
        or (s & _FILES and s & _FILES_OWNERS)
        or (s & _LAYOUT and s & (_FILES_OWNERS | _LAYOUT_OWNERS) and not s & _VIEWING)
        or (s & _SCREEN and s & _SCREEN_PARTS)
        or (s & _VIEWING and s & _VIEWED)
    ):
        return "filetree"
    if s & _RUNTIME_ALONE:
        return "runtime"
    for heads, tails in _RUNTIME_PAIRS:
        if s & heads and s & tails:
            return "runtime"
    return None


# A system prompt rewritten for each item of a loop that calls the model (both front ends'
# `peritem`): the names of a prompt's start, and what a loop over several parties walks (each
# party has a conversation of its own, so its own prompt is no breaker).
_PROMPT_START = frozenset({"system", "instructions", "instruction", "preamble"})
_NOT_TEXT = frozenset({"tokens", "token", "count", "length", "size", "id", "ids", "name"})
_PARTIES = frozenset(
    {"agent", "agents", "persona", "personas", "role", "roles", "model", "models", "expert"}
    | {"experts", "provider", "providers", "client", "clients", "member", "members", "bot"}
    | {"bots", "character", "characters", "speaker", "speakers", "participant", "worker"}
    | {"workers", "assistant", "assistants", "config", "configs", "variant", "variants"}
)


def names_prompt_start(name: str) -> bool:
    """`system_prompt`, `instructions`: the text of a prompt's start (not its token count, id or
    name, nor a user prompt)."""
    ws = set(words(name))
    return bool(ws & _PROMPT_START) and not ws & _NOT_TEXT and "user" not in ws


def names_party(name: str) -> bool:
    """`agent`, `personas`, `model`: one of several parties, each with its own conversation."""
    return bool(set(words(name)) & _PARTIES)


# The retrieval both front ends follow (a search or recall handed the current request, whose
# result is per-request content): the words of such a call (`memoryRecall(chatId, userPrompt)`,
# `vectorStore.similaritySearch(query)`, `retriever.invoke(question)`) and of the request's names.
FETCH_WORDS = frozenset(
    {"search", "retrieve", "retriever", "recall", "lookup", "relevant", "similarity", "rag"}
)
_REQUEST_NAMES = frozenset({"query", "question", "questions", "queries"})
_REQUEST_OWNERS = frozenset({"user", "current", "latest", "incoming", "last", "new"})
_REQUEST_PARTS = frozenset({"message", "input", "request", "prompt", "text", "msg"})


def names_request(name: str) -> bool:
    """Whether `name` names the current request: `query`, `question`, `user_message`,
    `latestInput`, and the input alone (`input`, `inputText`)."""
    ws = set(words(name))
    return bool(
        ws & _REQUEST_NAMES
        or (ws & _REQUEST_OWNERS and ws & _REQUEST_PARTS)
        or ("input" in ws and ws <= {"input", "text"})
    )


# What a provider says when a request is longer than the model's context.
OVERFLOW_TEXT = re.compile(
    r"context[ _-]?(length|window)|maximum context|too long|token limit|too many tokens"
    r"|context[ _-]?overflow",
    re.IGNORECASE,
)


def overflow_name(name: str) -> bool:
    """`ContextWindowExceededError`, `is_context_length_error`, `TokenLimitExceeded`."""
    ws = set(words(name))
    return (
        ("context" in ws and bool(ws & {"length", "window", "overflow", "exceeded"}))
        or {"token", "limit"} <= ws
        or {"too", "long"} <= ws
    )


# Verbs that make a middle-out name a cut (`middleOutFiltering`, `apply_middle_out`), not a
# checker or a helper about the strategy (`check_middle_out`, `middle_out_transform`).
_CUTS = frozenset(
    {"filter", "filtering", "trim", "trimming", "truncate", "truncation", "cut", "compress"}
    | {"compression", "prune", "pruning", "strategy", "apply", "shrink"}
)

#: What a middle-out cut does to the cache (the PL303 message's reason, in both languages).
MIDDLE_OUT_TEXT = (
    "once the budget is passed the message after the kept head changes every turn, and every "
    "request misses the cache from there on; summarise the middle in one step instead"
)


def is_middle_out_name(name: str) -> bool:
    """Whether a function's name says it cuts the middle out of something (`middleOutFiltering`,
    `apply_middle_out`), as against naming the strategy (`check_middle_out`)."""
    ws = words(name)
    return any(
        a == "middle" and b == "out" and set(ws[max(0, i - 1) : i] + ws[i + 2 :]) & _CUTS
        for i, (a, b) in enumerate(itertools.pairwise(ws))
    )
