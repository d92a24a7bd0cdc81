"""The rule catalogue: every lint rule's stable code, default severity and documentation.

Codes never change meaning once published (SARIF consumers and baselines key on them). Each
rule rests on a provider behaviour or a reported failure; the `source` field says which one and
where it is documented (the provider's prompt caching docs, an SDK's docstrings, or field
reports on agent clients), with the section of the repository's docs/providers.md (or
docs/design.md) that records it. Pure data, no I/O.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prefixlock.cache import openai
from prefixlock.cache.anthropic import LOOKBACK, MAX_BREAKPOINTS
from prefixlock.cache.defaults import UNPRICED_MIN_TOKENS

ERROR = "error"
WARNING = "warning"
NOTE = "note"
SEVERITIES = (ERROR, WARNING, NOTE)
# Tokens: the minimum of a model without a price entry, for rules that need a prefix known to be
# cacheable when no model is named.
LOWEST_MINIMUM = UNPRICED_MIN_TOKENS


@dataclass(frozen=True)
class Rule:
    """One rule and its ruff-style documentation."""

    code: str
    name: str
    family: str
    severity: str
    summary: str
    what: str
    why: str
    source: str
    example: str
    fix: str
    fix_safety: str  # "safe", "unsafe" or "none"

    def doc(self) -> str:
        """The full documentation as shown by `--explain`."""
        return (
            f"# {self.code} {self.name} ({self.family}, default {self.severity})\n\n"
            f"## What it does\n{self.what}\n\n"
            f"## Why it matters\n{self.why}\n\nSource: {self.source}\n\n"
            f"## Example\n{self.example}\n\n"
            f"## Fix\n{self.fix}\n\nFix safety: {self.fix_safety}.\n"
        )


_FACT_BYTES = (
    "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): the prefix is "
    "hashed in the order tools, system, messages, and an entry matches only byte for byte."
)
_FACT_OPENCODE = (
    "Field reports on agent clients (docs/providers.md#opencode): an OpenCode plugin that put "
    "the current time (to the second) and random message ids into the prompt drove the "
    "Anthropic hit rate to 0%."
)
_FACT_ORDER = (
    "Field reports on agent clients (docs/providers.md#claude-code): Claude Code orders its "
    "prompt from least to most volatile, and appends reminders as messages instead of editing "
    "earlier content."
)
_FACT_SORT = (
    "Field reports on agent clients (docs/providers.md#sorted-lists): an unsorted list of "
    "agents or skills in a tool description changed on every call and broke caching; sort "
    "every list that enters the prefix."
)
_FACT_GPT56 = (
    "OpenAI's prompt caching docs (docs/providers.md#openai-breakpoints): gpt-5.6 and later "
    "write at 1.25x and read at 0.1x, with explicit breakpoints (prompt_cache_breakpoint on a "
    f"content block, at most {openai.MAX_WRITES} writes) and two modes, implicit and explicit. "
    "The openai SDK's "
    "PromptCacheOptions docs: 'With implicit, OpenAI creates one implicit breakpoint and "
    "writes up to the latest three explicit breakpoints ... With explicit ... writes up to the "
    "latest four explicit breakpoints. If there are no explicit breakpoints, the request does "
    "not use prompt caching.'"
)
_MOVE = (
    "Keep the prefix constant and append the value to the newest user turn instead (the "
    "transcript is append-only, so it is sent byte-identical afterwards). `--unsafe-fixes` "
    "moves each line of the system prompt that holds such a value to the front of the last "
    "user message of the same call (the prompt and the message list written in the call, or "
    "in local variables used only there, the list built after the prompt), and rewrites the "
    'rest of the prompt as an f-string. The prompt may be an f-string, `"...".format(...)` '
    "with plain fields (`{}`, `{0}`, `{name}`, with `!r` and a constant format spec), a `+` "
    'chain, `"\\n".join([...])` of a literal list with a constant separator, or '
    '`"..." % values` with only `%s`, `%d`, `%r` and `%%`; where the new code could behave '
    "differently (a `+` operand or join item not known to be a str, `%d` written as "
    "`int(x)`, a single value after `%` that could be a tuple) the fix's description says "
    "so. Attribute or index fields, `*args`/`**kwargs`, a computed `.format()` argument "
    "read by two fields or by none, a separator that is not a literal, a generator, and "
    "other `%` conversions get no fix; nor does a one-line prompt."
)

_RULES: tuple[Rule, ...] = (
    # PL1xx: volatile values in the prefix
    Rule(
        "PL101",
        "time-in-prefix",
        "volatile",
        ERROR,
        "Current time (to the second or minute) flows into the prompt prefix",
        "Finds a clock reading (`datetime.now()`, `time.time()`, `{{ now }}`, a strftime with "
        "hours/minutes/seconds) that reaches the system prompt, instructions, tool definitions "
        "or an earlier message. A time in the newest user turn or in a tool result is fine and "
        "not flagged. A value computed once at import time is reported as a note; read at "
        "import into a prompt constant, only where the project runs a long-running server "
        "(a web framework, a chat bot, an agent worker): each worker and restart sends "
        "another prefix. In a "
        "one-off request's system prompt (no history after it) a clock reading is flagged only "
        "where the request marks its prefix for caching (`cache_control`, `prompt_cache_key`): "
        "each repeat of it (a classifier called per ticket) would read that prompt from the "
        "cache, and the clock changes it every time; without a mark no later request reads it. "
        "One clock reading carried into one prompt at several lines is one finding, at the "
        "reading's line, the other lines listed as related; where one form of it carries the "
        "time of day and another only the date, it is this code (the prompt changes on every "
        "request), not PL102 as well. In TypeScript also the `{{time}}` slot of an exported "
        "system template (`DEFAULT_SYSTEM_TEMPLATE`) that an importing file fills with the "
        "clock (`fill(T, { time: new Date().toLocaleString() })`, or a call of its own "
        "function that reads it, `today: formatToday()`), the template a string or an array "
        "of lines joined into one, reported on the slot's line (a `{{date}}` or `{today}` "
        "slot filled so is PL102).",
        "Every request then differs early in the prefix, so nothing after the timestamp is "
        "ever read from the cache: each turn re-bills the whole prompt at the write price.",
        _FACT_OPENCODE + " " + _FACT_BYTES,
        "```python\nnow = datetime.now()\n"
        'client.messages.create(system=f"Time: {now}\\n{RULES}", ...)\n```',
        _MOVE,
        "unsafe",
    ),
    Rule(
        "PL102",
        "date-in-prefix",
        "volatile",
        WARNING,
        "Today's date flows into the prompt prefix",
        "Finds a date (`date.today()`, `strftime('%Y-%m-%d')`, `{{ date }}`) that reaches the "
        "prefix. A year in prose, or a date in the newest user turn, is not flagged; in Python "
        "a date read at import (a module constant), which one process keeps, is a note. A date "
        "in the system prompt of a one-off request is not flagged, as no conversation's "
        "prefix follows it (TypeScript: a system message first in a literal list of user "
        "messages only, sent as it is or from a local never pushed or spread, and `system` "
        "beside one `prompt` or user-only `messages`; Python: `system=` beside user-only "
        "`messages=` or one `input=` text). Beside a history, a `messages` handed in or a "
        "list that grows (`push`, `append`, `+=`) it is flagged. "
        "Severity follows where it sits: in tool definitions (hashed first) it is an error. "
        "A clock reading is this code only where every form of it that reaches one prompt is "
        "a date (it changes once a day); where one form carries the time, it is PL101.",
        "The prefix changes once a day: the first request after midnight, and every session "
        "that spans it, re-bills the whole prompt; sessions of different days never share it.",
        _FACT_BYTES + " " + _FACT_ORDER,
        '```python\nsystem = f"Today is {date.today():%Y-%m-%d}. {RULES}"\n```',
        _MOVE,
        "unsafe",
    ),
    Rule(
        "PL103",
        "random-id-in-prefix",
        "volatile",
        ERROR,
        "A random value (uuid, nonce, random number, request id) flows into the prefix",
        "Finds `uuid.uuid4()`, `random.*`, `secrets.*`, `os.urandom` or a `{{ request_id }}` / "
        "`{{ nonce }}` placeholder that reaches the prefix.",
        "A fresh random value makes every request unique from that byte on: the hit rate drops "
        "to zero.",
        _FACT_OPENCODE,
        '```python\nsystem = f"Request {uuid.uuid4()}\\n{RULES}"\n```',
        _MOVE + " If the id is for tracing, send it in request metadata or headers.",
        "unsafe",
    ),
    Rule(
        "PL104",
        "vcs-state-in-prefix",
        "volatile",
        WARNING,
        "Version-control state (git status, branch, commit, diff) flows into the prefix",
        "Finds `git` invoked through subprocess (or GitPython/pygit2 repository objects) and "
        "`{{ git_status }}`-style placeholders whose output reaches the prefix.",
        "Working-tree state changes with every edit and commit an agent makes, so the prefix "
        "is re-written many times a session.",
        _FACT_ORDER + " prefixlock's design (docs/design.md#transcript): volatile facts (date, "
        "git status, file changes, reminders) go in the newest user turn, never into the prefix.",
        '```python\nstatus = subprocess.check_output(["git", "status"], text=True)\n'
        "system = RULES + status\n```",
        _MOVE,
        "unsafe",
    ),
    Rule(
        "PL105",
        "file-tree-in-prefix",
        "volatile",
        WARNING,
        "A directory listing or file tree flows into the prefix",
        "Finds `os.listdir`, `os.walk`, `os.scandir`, `glob.glob`, `Path.iterdir/glob/rglob` "
        "and `{{ file_tree }}`-style placeholders that reach the prefix. A glob with no "
        "wildcard written in its pattern (`root.glob(name)` of configured file names) looks "
        "up files someone named and is not a tree: only its order counts (PL203). In "
        "TypeScript the text of a file read from a path built on `process.cwd()` "
        "(`readFile(join(process.cwd(), 'prompts', 'system.md'))`) is no tree either: the "
        "path only locates a fixed file.",
        "The listing changes whenever the agent creates or deletes a file, which it does "
        "mid-session; every change re-bills the prompt from that point.",
        _FACT_ORDER,
        '```python\nfiles = "\\n".join(sorted(os.listdir(root)))\nsystem = RULES + files\n```',
        _MOVE + " Or give the model a list-files tool.",
        "unsafe",
    ),
    Rule(
        "PL106",
        "runtime-stats-in-prefix",
        "volatile",
        WARNING,
        "Runtime statistics (pid, memory, load, elapsed time, counters) flow into the prefix",
        "Finds `os.getpid()`, `psutil.*`, `os.getloadavg()`, `time.perf_counter()`, "
        "`shutil.disk_usage()`, `resource.getrusage()` and `{{ memory_usage }}`-style "
        'placeholders that reach the prefix. In TypeScript a name that says "system" of the '
        "machine (`system_time`, `systemInfo`, `systemHealth`) and a `system` key holding a "
        "record of figures (`telemetry: { system: { uptime, load } }`) are no prompt.",
        "These change every call or every process, so the prefix never repeats.",
        _FACT_BYTES,
        '```python\nsystem = f"pid {os.getpid()} load {os.getloadavg()[0]}\\n{RULES}"\n```',
        _MOVE,
        "unsafe",
    ),
    # PL2xx: ordering
    Rule(
        "PL201",
        "unordered-collection-in-prefix",
        "ordering",
        ERROR,
        "A set, a dict built from one, or the environment is iterated into the prompt or tools",
        "Finds iteration over a set (set literal, `set()`, set comprehension, `frozenset`), "
        "over a dict whose keys came from one (`{n: spec(n) for n in names}`, "
        "`dict.fromkeys(names)`), or over `os.environ` / `sys.modules` (keys, values, items), "
        "whose order reaches the prefix: `', '.join(skills)`, `tools=list(tool_set)`, a loop "
        'appending to a prompt list. A lookup by key (`os.environ["X"]`, `.get(...)`) is '
        "not an order. A dict from `json.load`, `**kwargs` or `vars()` keeps the order its "
        "file or call site wrote, the same on every run, and is not flagged here (PL202 "
        "does not flag it either: the same file or call writes the same order).",
        "Set order depends on string hash randomization, so it differs between processes: two "
        "runs of the same agent send different bytes and never share a cache entry. The "
        "environment's order is the launching process's and differs between shells.",
        _FACT_SORT,
        '```python\nSKILLS = {"search", "edit", "run"}\n'
        'system = "Skills: " + ", ".join(SKILLS)\n```',
        "Wrap the set in `sorted(...)`. Joining strings is fixed automatically.",
        "safe",
    ),
    Rule(
        "PL202",
        "json-without-sorted-keys",
        "ordering",
        WARNING,
        "`json.dumps` without `sort_keys=True` flows into the prefix",
        "Finds `json.dumps(...)` calls without `sort_keys=True` whose text reaches the system "
        "prompt or the tool definitions, when the key order comes from an unordered source: "
        "a dict built from a set's iteration (`{n: spec(n) for n in set(names)}`) or a "
        "listing. A dict written out with literal keys (here or as a module constant), one "
        "handed in as a parameter, or one computed from a parameter (a schema generated from "
        "a class) keeps the order its keys were inserted in, the same each time it is built "
        "the same way, and is not flagged.",
        "Key order follows dict insertion order, and a set's iteration order changes between "
        "processes with string hashing; canonical JSON keeps the bytes identical.",
        _FACT_BYTES + " prefixlock's canonical bytes (docs/design.md#canonical-bytes): JSON "
        "with sorted keys and fixed separators.",
        "```python\nconfig = {name: True for name in set(names)}\n"
        "system = RULES + json.dumps(config)\n```",
        "Add `sort_keys=True` (applied by `--fix`).",
        "safe",
    ),
    Rule(
        "PL203",
        "unsorted-listing-in-prefix",
        "ordering",
        WARNING,
        "A directory listing reaches the prefix in filesystem order",
        "Finds `os.listdir`, `glob.glob`, `os.scandir`, `Path.iterdir/glob/rglob` whose result "
        "reaches the prefix without `sorted(...)`.",
        "Directory order is arbitrary and differs between machines and file systems, so two "
        "machines with the same files send different prompts.",
        _FACT_SORT,
        '```python\nsystem = RULES + "\\n".join(os.listdir("docs"))\n```',
        "Wrap the listing in `sorted(...)` (applied by `--fix`). The listing is still volatile "
        "(PL105).",
        "safe",
    ),
    Rule(
        "PL204",
        "tool-definitions-not-canonical",
        "ordering",
        NOTE,
        "Tool definitions in a data file are not in canonical order",
        "In a JSON tool-definition or request file, finds a `tools` list that is not sorted by "
        "name, or schema objects whose keys are not sorted.",
        "Tool order and schema bytes are part of the cached prefix ('tool definitions (name, "
        "description, schema, order)' invalidate everything). A hand-kept order drifts with "
        "edits and disagrees with code that loads the same tools in name order.",
        "Anthropic's prompt caching docs, what invalidates the cache "
        "(docs/providers.md#anthropic-invalidation): a change to the tool definitions (name, "
        "description, schema, order) misses at every level. " + _FACT_SORT,
        '```json\n{"tools": [{"name": "write"}, {"name": "read"}]}\n```',
        "Sort the tools by name and the schema keys (applied by `--fix`, which rewrites the "
        "JSON file with two-space indentation).",
        "safe",
    ),
    # PL3xx: layout
    Rule(
        "PL301",
        "dynamic-before-static",
        "layout",
        WARNING,
        "Per-session or per-project content comes before static instructions",
        "Finds a system prompt whose first part is dynamic (a function argument, file contents "
        "read at run time, a per-project template variable) followed by a static part that "
        "reaches the model's cache minimum by itself (1,024 tokens when no model is named); "
        "a shorter one could never be an entry of its own, so its place costs nothing.",
        "The cache matches from the first byte: everything after the dynamic part is written "
        "again for every project or session, although it never changes; put first, it would "
        "be one entry every session reads.",
        _FACT_ORDER + " " + _FACT_BYTES,
        '```python\nsystem = f"{project_notes}\\n\\n{LONG_STATIC_RULES}"\n```',
        "Put the static instructions first and the dynamic context after them (or in a later "
        "system block).",
        "none",
    ),
    Rule(
        "PL303",
        "history-rewritten-in-place",
        "layout",
        WARNING,
        "Code rewrites earlier messages of the conversation depending on their position",
        "Finds a loop over the conversation (`history`, `messages`, `conversation`..., an "
        "agent's `memory.steps`, or a list of message parts drawn from one in the same "
        "function) that overwrites what a message shows (`content`, `text`, an "
        "`observations_images`-like attribute; of the message, a copy of it, or one of its "
        "parts) only for some messages: those chosen by their index (`idx < len(h) - n`, "
        "`i < keep_last`, `step.step_number <= current - 2`), by what later messages hold (a "
        "set the same loop fills) or by a budget counted down across messages "
        "(`images_to_remove -= 1`). A rewrite that treats every message alike is not "
        "flagged: it gives the same bytes every time. Also a history cut to a window: "
        "`messages[-n:]` (Python; also a count scaled from turns to messages, "
        "`history[-max_turns * 2:]`, or bound to a local the function returns, `trimmed = "
        "messages[-n:]` then `return [marker] + trimmed`, or cut from the history filtered into "
        "a local, `other = [m for m in history if ...]`; a history read back by a call named "
        "for the recent entries, `history = memory.load_recent(key)`) or `messages.slice(-n)` "
        "sent as the "
        "conversation, a fill "
        "from the newest message back while a budget lasts (or oldest first over the window "
        "a helper of the module kept, `turns = self.recent(history)` then `for t in turns: if "
        "used + n > budget: break`), messages popped from the front "
        "while over a budget, older messages rebuilt by position, LangChain.js "
        "`trimMessages`, a loader given a message cap, the history handed to a call with a "
        "token budget (`getMessagesSubset(history, systemTokens)`), a history cut by a helper "
        "given a budget (`clip_history(history=h, max_token_limit=n)`, the history sent "
        "through a configurable memory, `system + memory.integrate_context(history)`, "
        "`session.discard_exceeding(max_tokens)`), messages deleted from anywhere but the end "
        "once the history is long (`if len(history) > 26: del history[4:6]`), a window bound "
        "to a local that is then handed on as `messages=` (`self.chat(messages=trimmed)`), "
        "and a conversation cut out of its middle: a helper named for a middle-out cut "
        '(`middleOutFiltering(items)`), OpenRouter\'s `transforms: ["middle-out"]`, or, in '
        "TypeScript, a head and a tail joined (`[...frontMessages, ...endMessages]`) where "
        "tokens are compared with a budget. A summariser "
        "that replaces older messages by a summary (`[summary] + recent_messages`, LangChain's "
        "`SummarizationMiddleware`) is reported too, with its own advice: it misses the cache "
        "once per summary, not every turn, so keep it rare. In TypeScript also "
        "messages expired by a call (`expireMessages(history, ...)`), rewritten in a loop "
        "over the history (`m.content.output = ...`) or filtered out of it (`history = "
        "history.filter(...)`; not one message taken out by its id, `m.id !== id`, an "
        "edit); a list dropped from the front while the messages it makes "
        "measure over a budget (`while (messageChars(messages) > maxChars) recent.shift()`, "
        "`kept = kept.slice(1)` while `estimateMessageTokens(kept) > budget`), a fill from the "
        "newest message back through a local bound to the history (`const source = "
        "Array.isArray(messages) ? messages : []`), and a helper named for cutting to a token "
        "budget (`trimToTokenBudget(messages)`); a call's `maxTokens` is a history budget only "
        "when the call is named for cutting (`runChatTrimmer(messages, { maxTokens })`, not "
        "`chat(messages, { maxTokens: 200 })`, where it limits the reply). A framework's "
        "history store or builder configured with a message cap is a window wherever the "
        "call is (`RedisHistoryProvider(max_messages=10)`, `build_messages_with_history(..., "
        "max_history_messages=10)`, `ConversationBufferWindowMemory(k=5)`; not an agent "
        "loop's `max_turns`, a queue's `pull(max_messages=)`, a cap of `None` or one forwarded "
        "from the caller), and so is `.slice(-n)` at the end of an order-keeping chain over "
        "the history (`messages.filter(isChat).map(toModel).slice(-20)`; not after a filter "
        "that keeps one role, which picks messages). So is a store's own window: a messages "
        "collection read newest first and cut to a count (`db.messages.find(q).sort('ts', "
        "-1).limit(20)`, Python and TypeScript), a store call for the messages given a "
        "`limit` (`getMessages(id, { limit: 20 })`), LangChain.js `new BufferWindowMemory({ k: "
        "5 })`, and a repository class returning the last messages of one conversation "
        "(`class ChatRepository: ... return self.messages[chat_id][-n:]`). So is a retry "
        "that drops messages when a request overflows the context: an `except`/`catch` that "
        "names the overflow (its error class, or a `context_length_exceeded`/`maximum context "
        "length` text it tests) and cuts the history (`messages.pop(1)`, `messages.splice(1, "
        "4)`, `messages = messages[-10:]`, `truncate(messages)`), and a retry strategy named "
        "for truncating (`createAutoTruncateStrategy`); one that catches the error and gives "
        "up cuts nothing. So are the oldest messages after a kept system message spliced off "
        "over a cap (`if (messages.length > HISTORY_LENGTH * 2 + 1) messages.splice(1, 2)`), "
        "rows filled newest first into role messages on a list reversed after the loop while "
        "a token budget lasts (`if (budget - row.tokens < 0) break`, then `out.reverse()`), a "
        "chat log's newest lines read back as the conversation (`read_last_n_lines(LOG, "
        "30)`), a history loader the module defines with a cap left at its default (`def "
        "get_history(sid, limit=10)`), and a budget helper's result reassigned to a local "
        "handed back as `messages`. A history written back from a call named for compacting "
        "it (`messages = compact_messages(client, messages, window)`) is reported as a "
        "summariser. So are the newest messages read to a count and written as text into a "
        "system prompt (`systemPrompt += text` where `text = recent.map(fmt).join(sep)`, Python "
        "and TypeScript), and a list of any name the module fills with role messages, popped "
        "by position once long (`if len(self.memory) > n: self.memory.pop(1)`), and a call "
        "named for the newest messages or their context given a count (TypeScript, "
        "`sessions.getRecentContext(id, 10)`). So is a newest user message sent as text "
        "joined from the history's earlier user messages while the history keeps only the new "
        'text (Python: `"\\n".join([m["content"] for m in history ...] + [new])` sent, '
        '`history.append({"role": "user", "content": new})` kept). A running '
        "summary of the conversation (`summary`, `conversation_summary`, `props.summary`) "
        "written into a system prompt is reported as a summariser: each new summary changes "
        "the prompt's start; as a message after the system prompt it is where a summary "
        "belongs. Not flagged (TypeScript): a window whose messages are each cut to a length "
        "as they are made into text (`messages.slice(-20).map((m) => m.content.slice(0, "
        "500))`), excerpts for a side request rather than the history sent; and a list named "
        "for a field of the messages or sessions rather than for them (`sessionIds`, "
        "`stateHistoryTimestamps`), nor a history split at a moving index only to put an item "
        "between its halves (`[...m.slice(0, i), item, ...m.slice(i)]`).",
        "The cache matches a prefix byte for byte. A message sent as written on one request "
        "and rewritten on a later one (old observations masked as the window slides, "
        "outdated file views elided) changes the prefix at that message: the request re-bills "
        "everything from there on, again each time the window moves.",
        _FACT_BYTES + " " + _FACT_ORDER,
        "```python\nfor idx, entry in enumerate(history):\n    if idx < len(history) - 5:\n"
        '        entry = entry.copy()\n        entry["content"] = "(omitted)"\n```',
        "Rewrite in large steps (mask many old messages at once, every N turns), or mask "
        "before a message is first sent, or put a cache breakpoint just before the oldest "
        "message you may rewrite so the stable prefix above it stays cached.",
        "none",
    ),
    Rule(
        "PL304",
        "per-request-content-before-history",
        "layout",
        WARNING,
        "Content computed from the current message is sent before the conversation history",
        "Finds a part of the messages computed from the current message (a function that "
        "reads `cur_messages`, `current_query`, `latest_input`..., or calls one in the same "
        "module that does) placed ahead of the history (`history`, `done_messages`, "
        "`conversation`...): in a `+` chain or a `[*a, *b]` list in one function, or as "
        "fields of one object (`chunks.repo = ...`, `chunks.done = ...`) that its class joins "
        "in that order (`self.repo + self.done`), the class read from this module or from the "
        "module it is imported from when that file is in a folder above. In TypeScript and "
        "JavaScript, the current request (`${query}`) or what was retrieved for it (a "
        "parameter or local named like `context`, `results`, `memories`) written into the "
        "system prompt (the current request not where that prompt is a one-off request's, "
        "with no history after it: the request's own input, sent once; a `humanPrompt` is "
        "the user's turn), and a system message written from the request's current state "
        "(`{ role: 'system', content: \"Spec: \" + input.currentSpec }`, not `currentUser` or "
        "`currentDate`, which other rules read) put into a message list before the history "
        "is pushed or spread into it (`for (const m of history) messages.push(m)`), and "
        "retrieved content added to one text before the history is (`prompt += "
        "`${memoryContext}`` then a loop over the history that adds to `prompt`). In Python "
        "also a parameter named for what was retrieved (`memories`, `search_results`, "
        "`rag_context`, a session's `short_term_memory`; not `profile_context` or a "
        "project's `memory`) written into "
        "a system prompt. In both languages a system-prompt builder handed the user's live "
        "list (`generateTodoSystemPrompt(todos)`: todos, tasks, events, a schedule) whose "
        "system message goes ahead of the history (`[...systemMessages, ...messages]`, "
        '`[{"role": "system", ...}, *history]`), and a system prompt written anew for each item '
        "of a loop that calls the model with it (`for conflict in conflicts: system_prompt = "
        "f\"... {conflict['file']}\"` then `ask(prompt, system_prompt)`; not a loop over "
        "agents, personas or models, each with a conversation of its own). In TypeScript "
        "also a local named for a memory read back this turn (`const shortTermMemory = await "
        "memoryService.getContext(id)`; not a project's memory handed in, "
        "`fixture.setup.memory`) written into a system prompt, "
        "what a system-prompt builder of another module is handed "
        "(`this.rag.buildRagSystemPrompt(context, base)`: its arguments are its text) and "
        "the fields of the incoming request's body (`const { format } = await req.json()`, "
        "`req.body`, `payload.tone`; not an id, a call's settings such as `model`, or a field "
        "named for the system prompt or a persona, which a client sets once: a gateway "
        "forwarding `payload.system` is no finding) written into a system prompt, and a "
        "slot of a prompt template "
        "named for what is recalled or retrieved (`{{memoryJson}}`, `{searchResults}`, "
        "`{documents}`; not in a template that also holds the question, `{question}`, which "
        "is the user's turn, unless it is named for the system prompt), and a `{context}` "
        "slot (any `...Context` but a settled one, `profileContext`) ahead of a slot for the "
        "conversation (`{history}`) in the same template, a string or joined lines, reported "
        "on the slot's line (in Python the same `{context}` field of a module-level system "
        "prompt template ahead of its `{history}` field). A TypeScript "
        "prompt builder whose every call is a user message's content (`const finalPrompt = "
        "(x) => ...` read only as `{ role: 'user', content }`) builds the request's own turn "
        "and is no prefix.",
        "The cache matches from the first byte. A part that changes with each question (a "
        "repository map ranked by the files the question mentions, retrieved documents) and "
        "comes before the history moves the first differing byte up to itself: the whole "
        "history after it, which only grew, is billed again on every request, and a "
        "breakpoint placed on that part writes a new entry each time instead of reading one.",
        _FACT_BYTES + " " + _FACT_ORDER,
        "```python\ndef messages(self):\n    repo_map = self.rank_files(self.cur_messages)\n"
        "    return [*self.system, *repo_map, *self.history, *self.cur_messages]\n```",
        "Send per-request content after the history, next to the current message (or in it), "
        "or compute it once per session so it stays byte-identical; keep the breakpoints on "
        "parts that do not change.",
        "none",
    ),
    Rule(
        "PL305",
        "side-request-with-another-prefix",
        "layout",
        WARNING,
        "A side request sends the conversation as text under its own system prompt",
        "Finds, in one function, a message list written out with a system message first (or "
        "sent with a `system=` argument) and a message whose content is text drawn from the "
        "conversation (built in a loop over `history`/`messages`/`done`..., or computed from "
        "it), passed to a call that sends it (`create`, `send`, `completion`, `invoke`, "
        "`generate`...): a summariser, title or classifier request made mid-session. Also the "
        "history sent as messages after a system message of the request's own "
        "(`[plan_system] + memory_messages + [ask]`) in a function or prompt named for a side "
        "task (plan, summary, title, classify, compact, judge, reflect...), and a lone system "
        'message whose text names the conversation (`f"Pick the next speaker.\\n{history}"`). '
        "In TypeScript: a message list with a system message and a user message built from "
        "the chat history (`${formatHistory(chatHistory)}`). Not flagged in either language: "
        "excerpts of the recent turns, each message cut to a length as it is made into text "
        "(`messages.slice(-20).map((m) => m.content.slice(0, 500))`, `f\"{m['content'][:200]}"
        '" for m in history[-5:]`): a side request of excerpts resends no conversation.',
        "The session's cache entry starts with its own tools and system prompt. A side "
        "request with another system prompt shares none of it, so every token of the "
        "conversation it carries is billed (and, above the minimum, written) again, on every "
        "summary; on the session's model the same text could have been read at a tenth of "
        "the price.",
        _FACT_BYTES + " Field reports on agent clients (docs/providers.md#claude-code): "
        "Claude Code keeps its tool list fixed, and its compaction request reuses the parent's "
        "exact prefix.",
        '```python\ntext = "".join(m["content"] for m in history)\n'
        "client.messages.create(model=MODEL, max_tokens=500, system=SUMMARIZE,\n"
        '                       messages=[{"role": "user", "content": text}])\n```',
        "Send the session's own tools, system prompt and history unchanged and put the "
        'side task ("summarise the conversation above") in a final user turn, on the '
        "session's model; or accept the cost on a cheaper model, where no cache is shared "
        "anyway.",
        "none",
    ),
    Rule(
        "PL302",
        "mode-dependent-start",
        "layout",
        WARNING,
        "The prompt starts with text that depends on a mode or flag",
        "Finds a system prompt whose very first piece is a conditional (`A if plan else B`, "
        "`MODES[mode]`, a template starting with an `{% if %}` that has an else/elif branch "
        "or tests a mode or flag name), and a tool list picked by a mode or flag "
        "(`tools=PLAN_TOOLS if plan_mode else TOOLS`, `TOOLS_BY_MODE[mode]`): the tools come "
        "first in the prefix. `{% if data %}...{% endif %}` around optional content is not a "
        "mode. In TypeScript also a prompt indexed or built with a request's mode or group "
        "(`PROMPTS[group]`, `getWriterPrompt(ctx, config.mode)`, a `switch (mode)` whose cases "
        "set it; a mode-named key of a tool's fixed settings, `{ approvalMode: 'interrupt' "
        "}`, is no choice), tools chosen from the "
        "current message (`getTools(lastMessage)`) or by the model the request picks "
        "(`selectedChatModel === 'chat-model-reasoning' ? [] : tools`, also in Python), and "
        "one model call made with another tool "
        "list in another step of a workflow over the same history (`chatWithTools(llm, "
        "[this.codeInterpreterTool], chatHistory)` beside the main step's full list). In both "
        "languages, the model chosen by "
        "the step of an agent loop (`model = THINKING if turn == 0 else BASE` inside the "
        "loop): each model has a cache of its own. In Python also a live agent's tool list "
        "replaced mid-conversation (`await self.update_tools(tools)` from a tool; not in a "
        "constructor or setup method, nor an adapter's own `update_tools` forwarding it). In "
        "both languages, the system message at the head of a kept history replaced by "
        "computed text (`history[0] = { role: 'system', content: config.instructions }`) in "
        "a method named for a change (`updateSession`) or one that sends the messages. In "
        "TypeScript a choice ahead of its default counts as the choice (`PROMPTS[mode] || "
        "PROMPTS.normal`), and so does one section of a system prompt looked up by a mode "
        "(`${NOTES[replyMode] || NOTES.inform}`): the prompt changes from there on. In "
        "TypeScript also a system-prompt builder whose sections follow a mode or the skills "
        "active for the message that its caller hands in (`if (mode !== 'plan')`, "
        "`loadSection(`approach-${developmentMode}`)`, `buildModeSection(options.mode)`, "
        "`buildSkillSection(options.activeSkillNames)`, `ctx.getCreativeMode()`), and in any "
        "function a system prompt appended under a test of a mode parameter (`if "
        "(communicationMode === 'sms') systemInstruction += SMS_RULES`); a mode the function "
        "works out itself or a module constant is no choice of the caller's.",
        "Switching mode changes the first bytes, so no two modes share any cached prefix; for "
        "OpenAI the first ~256 tokens also pick the machine, so modes land on different "
        "machines.",
        _FACT_BYTES + " OpenAI's prompt caching docs (docs/providers.md#openai-routing): a "
        "request is routed by a hash of its first ~256 tokens combined with prompt_cache_key.",
        "```python\nsystem = (PLAN_HEADER if plan else ACT_HEADER) + RULES\n```",
        "Start with the shared static text; state the mode in a later block or the newest user "
        "turn. Send one tool list in every mode and refuse a tool the mode forbids when it is "
        "called.",
        "none",
    ),
    # PL4xx: breakpoints
    Rule(
        "PL401",
        "too-many-breakpoints",
        "breakpoints",
        ERROR,
        "More cache breakpoints in one request than the provider takes",
        "Anthropic: counts `cache_control` markers (block level plus the top-level automatic "
        f"one) in a request body or a literal request in code; more than {MAX_BREAKPOINTS} is an "
        "error. OpenAI gpt-5.6 and later: counts `prompt_cache_breakpoint` marks and reports, as "
        f"a warning, the ones a request does not write (all but the latest {openai.MAX_WRITES - 1} "
        "in implicit mode, where a mark on the newest message is the implicit breakpoint's own "
        f"write, or the latest {openai.MAX_WRITES} in explicit mode). In a trace, a mark an "
        "earlier request of the session wrote is not reported: matching considers the "
        "conversation's latest 80 breakpoints.",
        f"Anthropic allows at most {MAX_BREAKPOINTS} breakpoints per request (the top-level one "
        "takes a slot). "
        "OpenAI accepts any number but writes only the latest ones: an earlier mark that no "
        "request writes creates no entry, so nothing is ever read there.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): at most "
        f"{MAX_BREAKPOINTS} breakpoints per request, and the top-level one uses one of them. "
        + _FACT_GPT56,
        '```json\n{"system": [{"text": "a", "cache_control": {...}},\n'
        "  ... five of them]}\n```\n"
        '```python\nclient.chat.completions.create(model="gpt-5.6-terra", messages=[\n'
        '    {"role": "system", "content": [{"type": "text", "text": RULES,\n'
        '     "prompt_cache_breakpoint": {"mode": "explicit"}}],  # never written\n'
        "    ... three more marked examples, then the question])\n```",
        "Keep breakpoints after the tools, after the system prompt, and on the newest message "
        "(OpenAI: on the end of the system prompt and the last stable message; its own "
        "breakpoint covers the newest one).",
        "none",
    ),
    Rule(
        "PL402",
        "breakpoint-on-volatile-block",
        "breakpoints",
        WARNING,
        "A cache breakpoint sits on a block that changes every request",
        "Finds `cache_control` (Anthropic) or `prompt_cache_breakpoint` (OpenAI gpt-5.6 and "
        "later) on a block whose content is volatile in code (the newest message of a literal "
        "list is exempt: it is sent unchanged as history next turn); in a trace, an Anthropic "
        "breakpoint on a system block whose bytes differ in every request of a session, or an "
        "OpenAI mark on an item that the next request never sends byte-identical at the same "
        "place, throughout a session.",
        "A write happens at the breakpoint each time and is never read: you pay 1.25x-2x for "
        "nothing. OpenAI matches a breakpoint only exactly, with no fallback to a shorter "
        "prefix.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): a breakpoint "
        "on a block that changes on the next request (a timestamp, a one-off question) pays the "
        "write every time and is never read. The openai SDK's PromptCacheBreakpoint docs: "
        "'Marks the exact end of a reusable prompt prefix.'",
        '```python\n{"type": "text", "text": f"now: {now}",\n'
        '  "cache_control": {"type": "ephemeral"}}\n```',
        "Move the breakpoint to the last stable block before it.",
        "none",
    ),
    Rule(
        "PL403",
        "ttl-order",
        "breakpoints",
        ERROR,
        "A 1h cache entry comes after a 5m one",
        "Finds a breakpoint with `ttl: 1h` later in hashing order (tools, system, messages) "
        "than a breakpoint with the default or `5m` TTL.",
        "Longer TTLs must come before shorter ones; the request is rejected or the 1h entry "
        "cannot be kept.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): a longer "
        "TTL must come before a shorter one.",
        '```json\n{"system": [{"text": "a", "cache_control": {"type": "ephemeral"}},\n'
        '  {"text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}\n```',
        "Give the earlier breakpoints the 1h TTL, or drop the late 1h one.",
        "none",
    ),
    Rule(
        "PL404",
        "lookback-exceeded",
        "breakpoints",
        WARNING,
        f"More than {LOOKBACK} blocks between cache breakpoints",
        f"Finds, in a trace, a request whose breakpoints are all more than {LOOKBACK} blocks after "
        "every breakpoint of the previous request of the session (same model, tools and "
        "system), so no breakpoint can look back far enough to find the cached entry.",
        f"A read looks back at most {LOOKBACK} block positions from each breakpoint for an earlier "
        "write; further back, the entry is not found and the whole prefix is written again.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): a read looks "
        f"back at most {LOOKBACK} block positions from each breakpoint, so a turn that adds "
        f"{LOOKBACK} or more "
        "blocks needs another breakpoint.",
        "A turn that appends 25 tool_use/tool_result blocks and moves its only breakpoint to "
        "the end.",
        f"Add an intermediate breakpoint within {LOOKBACK} blocks of the previous one.",
        "none",
    ),
    Rule(
        "PL405",
        "prefix-below-minimum",
        "breakpoints",
        WARNING,
        "The cacheable prefix is shorter than the model's minimum",
        "Counts the tokens up to the last breakpoint (or the whole prompt for automatic "
        "caching) and compares them with the model's minimum cacheable length from the price "
        "table.",
        "Below the minimum nothing is cached and no error is raised; both cache counters stay "
        "0, so every request pays full price silently.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-minimums): below the "
        "model's minimum length nothing is cached and no error is raised (both counters 0); "
        "minimums 512-4,096 by model. OpenAI's minimum is "
        f"{openai.MIN_TOKENS:,} "
        "(docs/providers.md#openai-routing).",
        "A 300-token system prompt with a breakpoint on claude-opus-4-7 (minimum 2,048).",
        "Accept it (short prompts cost little), or put stable material (examples, docs) into "
        "the prefix until it passes the minimum.",
        "none",
    ),
    Rule(
        "PL406",
        "no-breakpoint",
        "breakpoints",
        WARNING,
        "A request has no cache breakpoint, or none after the stable part",
        "Finds an Anthropic Messages request (a body or a `messages.create` call) with no "
        "`cache_control`, neither on a block nor at the top level, whose system prompt alone "
        "is known to reach the model's minimum (a literal or module constant; "
        f"{LOWEST_MINIMUM:,} tokens when no model is named); and one whose breakpoints all sit "
        "before the end of its stable part (the tools and the system prompt), e.g. only on a tool "
        "definition. For OpenAI gpt-5.6 and later: a request with `prompt_cache_options` "
        "mode `explicit` and no `prompt_cache_breakpoint` on any input content (in code, only "
        "when every message is written out).",
        "Anthropic caches only where a breakpoint says so; without one every turn re-bills "
        "the full prompt, and whatever follows the last breakpoint (here: the rest of the "
        "system prompt) is re-billed on every turn. OpenAI's explicit mode drops its own "
        "breakpoint, so without a mark nothing is cached at all.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-breakpoints): caching is "
        "switched on by cache_control on a content block (an explicit breakpoint), or once at "
        "the top level of the request (automatic). " + _FACT_GPT56,
        '```python\nclient.messages.create(model="claude-sonnet-5",\n'
        "                       system=LONG, messages=msgs)\n"
        'client.chat.completions.create(model="gpt-5.6-terra", messages=msgs,\n'
        '    prompt_cache_options={"mode": "explicit"})\n```',
        'Add top-level `cache_control={"type": "ephemeral"}` or mark the last system block. '
        'OpenAI: mark the end of the system prompt with `"prompt_cache_breakpoint": {"mode": '
        '"explicit"}`, or use the implicit mode.',
        "none",
    ),
    Rule(
        "PL407",
        "breakpoint-on-model-output",
        "breakpoints",
        ERROR,
        "An OpenAI prompt_cache_breakpoint sits on an assistant message",
        "Finds `prompt_cache_breakpoint` on a content part of an assistant message in a Chat "
        "Completions or Responses request (a literal call, a body file or a trace).",
        "Breakpoints mark the end of a reusable input prefix; the model's own output cannot "
        "carry one. OpenAI's implicit breakpoint only ever lands on an input message or tool "
        "output, and the emulator answers a marked assistant message with a 400.",
        "The openai SDK (3.57) types (docs/providers.md#openai-breakpoints) give the field to "
        "input parts only: a Responses assistant output message's `output_text` parts have "
        "none, and the typed input `Message` item takes only the user, system and developer "
        "roles. The shorthand input message and Chat's assistant message reuse the input text "
        "part, so for them the rule follows prefixlock's emulator and "
        "prefixlock.cache.units.breakpoint_eligible.",
        '```python\n{"role": "assistant",\n'
        ' "content": [{"type": "text", "text": answer,\n'
        '              "prompt_cache_breakpoint": {"mode": "explicit"}}]}\n```',
        "Mark the user or tool message after it instead (the same prefix plus that message).",
        "none",
    ),
    Rule(
        "PL408",
        "retention-with-cache-ttl",
        "breakpoints",
        WARNING,
        "prompt_cache_retention is sent together with prompt_cache_options.ttl",
        "Finds an OpenAI request (a literal call, a body file or a trace) that sets both the "
        "deprecated `prompt_cache_retention` and `prompt_cache_options.ttl`.",
        "The SDK deprecates the retention in favour of the TTL and documents them as separate "
        "limits that do not interact: the retention a maximum (`in_memory` or `24h`), the TTL "
        "a minimum lifetime (`30m`, `12h` on Responses). Sending both reads as one setting "
        "but asks for two, which can contradict each other (`in_memory` with `12h`); "
        "prefixlock's emulator refuses the combination with a 400.",
        "The openai SDK (3.57) docs of `prompt_cache_retention` "
        "(docs/providers.md#openai-retention): 'Deprecated. Use prompt_cache_options.ttl "
        "instead ... This field expresses a maximum retention policy, while "
        "prompt_cache_options.ttl expresses a minimum cache lifetime. The two fields are "
        "independent and do not interact.'",
        '```python\nclient.responses.create(model="gpt-5.6-terra", input=items,\n'
        '    prompt_cache_retention="24h", prompt_cache_options={"ttl": "12h"})\n```',
        "Drop `prompt_cache_retention`; keep `prompt_cache_options.ttl`.",
        "none",
    ),
    # PL5xx: traces
    Rule(
        "PL501",
        "model-changed",
        "traces",
        ERROR,
        "The model changed in the middle of a session",
        "Compares consecutive requests of a session in a trace.",
        "The cache is per model: the next request re-bills the whole prompt.",
        "Anthropic's prompt caching docs, what invalidates the cache "
        "(docs/providers.md#anthropic-invalidation): a model change misses everything, as the "
        "cache is per model. Field reports on agent clients (docs/providers.md#claude-code): "
        "switching model costs one full uncached turn.",
        "Request 7 uses claude-opus-4-7, request 8 claude-sonnet-4-6, same transcript.",
        "Switch through a quote (prefixlock's guard), or delegate the work to a subagent.",
        "none",
    ),
    Rule(
        "PL502",
        "system-changed",
        "traces",
        ERROR,
        "The system prompt changed in the middle of a session",
        "Compares the system blocks (and OpenAI instructions / system messages) of "
        "consecutive requests; names the first differing byte and what it looks like.",
        "A system change misses the system and message levels: the whole prompt after the "
        "tools is written again.",
        _FACT_BYTES,
        "The system prompt embeds the current time and differs in every request.",
        "Freeze the system prompt; append changing facts to the newest user turn.",
        "none",
    ),
    Rule(
        "PL503",
        "tools-changed",
        "traces",
        ERROR,
        "The tool definitions or their order changed in the middle of a session",
        "Compares tool definitions of consecutive requests.",
        "Tool changes (name, description, schema, order) invalidate every cache level.",
        "Anthropic's prompt caching docs, what invalidates the cache "
        "(docs/providers.md#anthropic-invalidation): a tool definition change misses the tools, "
        "system and messages levels. OpenAI's prompt caching docs "
        "(docs/providers.md#openai-prefix): the prefix changes with the model and the tools "
        "(and their order).",
        "A tool list built from a set comes out in a different order on request 3.",
        "Keep one tool list per session; prefer `tool_choice` / allowed tools over removing tools.",
        "none",
    ),
    Rule(
        "PL504",
        "settings-changed",
        "traces",
        WARNING,
        "tool_choice, thinking, effort or another prefix setting changed mid-session",
        "Compares tool_choice, thinking, output_config (Anthropic) and parallel_tool_calls, "
        "response_format, reasoning effort, verbosity (OpenAI) between consecutive requests.",
        "These settings are part of the cached prefix: Anthropic misses the message level, "
        "OpenAI the whole prompt.",
        "Anthropic's prompt caching docs, what invalidates the cache "
        "(docs/providers.md#anthropic-invalidation): a change to tool_choice or the thinking "
        "config misses the messages level. OpenAI's prompt caching docs "
        "(docs/providers.md#openai-prefix): the prefix changes with parallel_tool_calls, the "
        "response format, the reasoning effort and the verbosity.",
        "Request 4 sets tool_choice {type: any} after three requests with auto.",
        "Keep settings fixed for a session.",
        "none",
    ),
    Rule(
        "PL505",
        "history-rewritten",
        "traces",
        ERROR,
        "Earlier messages were edited instead of appended to",
        "Checks that each request's messages start with the previous request's messages "
        "(ignoring where cache_control or prompt_cache_breakpoint sits), up to what the "
        "previous request could leave in the cache: its last breakpoint (Anthropic; gpt-5.6 "
        "and later), or all but its newest message (automatic caching: OpenAI before gpt-5.6, "
        "gpt-5.6's implicit breakpoint, vLLM). Changing or dropping only what came after "
        "that (volatile text such as a date sent after the breakpoint, as prefixlock's "
        "`send(volatile=...)` does) is not reported. DeepSeek stores whole-input units, so "
        "there any edit counts.",
        "Editing an earlier message (a reminder rewritten in place, a truncated tool result) "
        "misses everything after the edit; what lay after the last breakpoint was never "
        "cached, so dropping it costs nothing.",
        _FACT_ORDER,
        "Request 5 rewrites the first user message to add a reminder (an edit before the "
        "breakpoint). Not reported: request 1 carried 'Now: 10:00' after the breakpoint on "
        "its user message and request 2 resends that message without it.",
        "Append new content to the newest user turn; compaction should be an explicit fork. "
        "Send one-off text after the last breakpoint (volatile=...), never inside the "
        "cached part.",
        "none",
    ),
    Rule(
        "PL506",
        "missing-cache-key",
        "traces",
        WARNING,
        "OpenAI-format requests send no prompt_cache_key",
        "Finds sessions of OpenAI Chat Completions / Responses / compatible requests without "
        "`prompt_cache_key`.",
        "Requests are routed by a hash of the first tokens combined with the key; without a "
        "stable key, a busy prefix spills onto other machines and misses.",
        "OpenAI's prompt caching docs on routing (docs/providers.md#openai-routing). Field "
        "reports on agent clients (docs/providers.md#opencode): OpenCode behind a third-party "
        "OpenAI proxy got ~0% hits because it sent no promptCacheKey; sending the session id as "
        "the key made requests ~87% cheaper.",
        '`{"model": "gpt-5.4", "messages": [...]}` with no key.',
        "Send the session id as `prompt_cache_key`.",
        "none",
    ),
    Rule(
        "PL507",
        "cache-key-changed",
        "traces",
        ERROR,
        "prompt_cache_key changed in the middle of a session",
        "Compares prompt_cache_key between consecutive requests of a session.",
        "A new key routes the request to another machine, which does not hold the prefix.",
        "OpenAI's prompt caching docs (docs/providers.md#openai-routing): a stable "
        "prompt_cache_key per session is the documented way to keep requests on the machine "
        "that holds their prefix.",
        "A key built from a per-request id.",
        "Use one key per session (the session id).",
        "none",
    ),
    Rule(
        "PL508",
        "idle-gap-past-ttl",
        "traces",
        WARNING,
        "The gap between two requests is longer than the cache TTL",
        "Compares the time between consecutive requests of a session with the TTL (the "
        "breakpoint's 5m/1h for Anthropic, the price table's TTL otherwise).",
        "The entry expired: the next request writes the whole prefix again.",
        "Anthropic's prompt caching docs (docs/providers.md#anthropic-cache-lifetime): the TTL "
        "counts from the start of the request and is refreshed free on each hit. Field reports "
        "on agent clients (docs/providers.md#aider): Aider can send keep-alive pings "
        "(max_tokens=1) every 4m55s.",
        "Requests at 12:00:00 and 12:07:30 with 5-minute breakpoints.",
        "Use the 1h TTL for slow sessions, or keep-alive pings when the next turn is worth it.",
        "none",
    ),
    # PL6xx: agent files
    Rule(
        "PL601",
        "skill-model-differs",
        "agent-files",
        WARNING,
        "A skill or command file switches to a model other than the session's",
        "Reads YAML front matter of skill/command files and compares `model:` with the "
        "session model (`--model`, or `model` in `[tool.prefixlock.lint]`; without one, "
        "nothing is compared).",
        "A skill runs inside the session: switching the model costs one full uncached turn "
        "and, on return, another one.",
        "Field reports on agent clients (docs/providers.md#claude-code): in Claude Code, "
        "switching model, effort, fast mode or MCP tools costs one full uncached turn.",
        "```markdown\n---\nname: review\nmodel: claude-haiku-4-5\n---\n```",
        "Drop `model:` (inherit the session's), or run the work as a subagent.",
        "none",
    ),
    Rule(
        "PL602",
        "subagent-model-differs",
        "agent-files",
        NOTE,
        "A subagent file names a model other than the session's",
        "Reads YAML front matter of agent files and compares `model:` with the session model "
        "(`--model`, or `model` in `[tool.prefixlock.lint]`; without one, nothing is "
        "compared). Claude Code's aliases `sonnet`, `opus`, `haiku` (and `sonnet[1m]`) "
        "name the family's model: the same model when the session runs that family; "
        "`inherit` is always the same.",
        "A subagent on another model never reads the parent's cache; only a fork with the "
        "same model and prefix does. Often intended (a cheaper model), so this is a note: "
        "check that the delegation pays for its cold start.",
        "Field reports on agent clients (docs/providers.md#claude-code): a Claude Code "
        "subagent's first request does not read the parent's cache; a fork (same prefix) "
        "does.",
        "```markdown\n---\nname: explorer\nmodel: claude-opus-4-7\n---\n```",
        "Use `model: inherit`, or keep it and accept the cold start.",
        "none",
    ),
    # PL9xx: input the linter could not read
    Rule(
        "PL901",
        "syntax-error",
        "input",
        ERROR,
        "A Python file could not be parsed",
        "Reports the syntax error with its line; other files are still linted.",
        "Nothing in the file was checked.",
        "Linter behaviour: bad input is reported as a finding with its file and line, and "
        "the rest is still linted (policies/README.md, Command line).",
        "`def f(:`",
        "Fix the syntax error.",
        "none",
    ),
    Rule(
        "PL902",
        "invalid-data",
        "input",
        ERROR,
        "Front matter, YAML, JSON or TOML could not be parsed",
        "Reports the parse error with its line; the rest of the file and other files are "
        "still linted where possible.",
        "The file's prompt or agent settings were not checked.",
        "Linter behaviour: bad input is reported as a finding with its file and line, and "
        "the rest is still linted (policies/README.md, Command line).",
        "```markdown\n---\nmodel: [unclosed\n---\n```",
        "Fix the syntax.",
        "none",
    ),
    Rule(
        "PL903",
        "unreadable-file",
        "input",
        WARNING,
        "A binary or non-UTF-8 file was given",
        "Reports files that contain NUL bytes or are not valid UTF-8.",
        "Prompts are text; a binary file here is usually a wrong path.",
        "Linter behaviour: bad input is reported as a finding with its file and line, and "
        "the rest is still linted (policies/README.md, Command line).",
        "`prefixlock lint logo.png`",
        "Exclude the file.",
        "none",
    ),
    Rule(
        "PL904",
        "malformed-trace-line",
        "input",
        ERROR,
        "A trace line is not a JSON request record",
        "Reports truncated or invalid JSONL lines with their line number; the other lines are "
        "still checked.",
        "The request on that line was not checked, and the session comparison skips it.",
        "Linter behaviour: bad input is reported as a finding with its file and line, and "
        "the rest is still linted (policies/README.md, Command line).",
        "A trace cut off in the middle of its last line.",
        "Re-export the trace.",
        "none",
    ),
    Rule(
        "PL905",
        "suppression-without-reason",
        "input",
        WARNING,
        "An inline suppression gives no reason",
        "Finds `prefixlock: ignore[CODE]` comments (or front-matter / sidecar entries) with no "
        "reason text. They do not suppress anything.",
        "A suppressed cache break costs money every request; the reason records why it is "
        "accepted.",
        "Linter policy: a suppression must say why, or it suppresses nothing "
        "(policies/README.md, Suppressions).",
        "`# prefixlock: ignore[PL101]`",
        "Write the reason after the bracket: `# prefixlock: ignore[PL101] pinned per deploy`.",
        "none",
    ),
    Rule(
        "PL906",
        "analysis-failed",
        "input",
        WARNING,
        "A file could not be analysed within the linter's bounds",
        "Reports a file whose analysis hit a bound: nesting deeper than Python's recursion "
        "limit (deeply nested JSON, thousands of chained `+` terms), more time than the "
        "per-file budget, or more findings than the per-file cap, or an error of the "
        "linter's own on code it did not foresee (named, as a bug to report). The run goes on "
        "with the other files. A JavaScript file with a line of 10,000 characters or more is a "
        "minified bundle: generated code, skipped by name when it ends in `.min.js`; past a "
        "bound it gives no notice either, since no prompt there is anyone's to fix.",
        "Nothing (or, at the findings cap, not everything) in the file was checked; one "
        "pathological file must not hide the findings of the rest.",
        "Linter behaviour: a file past one of the bounds (recursion, time, findings, size) is "
        "reported and the run goes on with the other files (policies/README.md, Command "
        "line).",
        "A generated 5 MB JSON file nested 10,000 levels deep.",
        "Exclude generated files (`exclude` in `[tool.prefixlock.lint]`), or split the file.",
        "none",
    ),
)

RULES: dict[str, Rule] = {r.code: r for r in _RULES}


def rule(code: str) -> Rule:
    return RULES[code]


def matches(code: str, patterns: Iterable[str]) -> bool:
    """Whether `code` is selected by any of `patterns` (a code, a prefix like PL1, or ALL)."""
    for p in patterns:
        p = p.strip().upper()
        if p == "ALL" or code.startswith(p):
            return True
    return False


def is_known_selector(pattern: str) -> bool:
    p = pattern.strip().upper()
    return p == "ALL" or any(code.startswith(p) for code in RULES)
