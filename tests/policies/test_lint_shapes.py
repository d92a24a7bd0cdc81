"""Rules made general after real6 was scored (real2 to real6 are all development data now):
each test is the general shape of code a rule missed or misfired on — the sink a value reaches
and the path it takes (a helper that cuts the history, a budget loop over a copy, a constant
that reads like a system prompt, a date slot, a macro filler, a JSX system message) — written
fresh, with names of its own, so that a rule keyed to one project's names fails it."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source
from tests.helpers.lintfind import line_codes as _codes

# --- Python history windows ---------------------------------------------------------------


def test_a_history_cut_by_a_helper_given_a_budget() -> None:
    # A bot trims its session in a method of another class; an error path clips the history
    # with a module helper; a memory class fills its prompt up to a token limit.
    src = (
        "class Bot:\n"
        "    def reply(self, session_id, text):\n"
        "        session = self.sessions[session_id]\n"
        "        session.add_query(text)\n"
        "        session.drop_oldest(self.max_tokens)\n"
        "        return self.client.chat(messages=session.messages)\n"
        "def on_overflow(inputs, history, limit):\n"
        "    history = clip_history(history=history, max_token_limit=limit)\n"
        "    return history\n"
        "def build(prompt, messages, budget):\n"
        "    return fill_history_upto_token_limit(prompt, messages, budget)\n"
    )
    assert _codes(src, "bot.py") == [(5, "PL303"), (8, "PL303"), (11, "PL303")]


def test_a_helper_that_shortens_other_things_is_no_window() -> None:
    # Truncating a document to a budget, or reading a limit named after the history, cuts no
    # conversation.
    src = (
        "def snippet(doc, max_tokens):\n"
        "    return truncate_text(doc, max_tokens)\n"
        "def detect(chat_ctx, MAX_HISTORY_TURNS):\n"
        "    return chat_ctx.copy().truncate(max_items=MAX_HISTORY_TURNS)\n"
    )
    assert _codes(src, "util.py") == []


def test_a_history_cut_by_position_once_it_is_long() -> None:
    # A chat bot deletes two early messages once the history passes a count; taking back the
    # newest message (pop(), del [-1]) is no window.
    src = (
        "class Client:\n"
        "    async def answer(self, text):\n"
        "        self.chat_log.append({'role': 'user', 'content': text})\n"
        "        if len(self.chat_log) > 30:\n"
        "            del self.chat_log[2:4]\n"
        "        if len(self.chat_log) > 1:\n"
        "            self.chat_log.pop()\n"
        "        return await self.api.create(model='m', messages=self.chat_log)\n"
    )
    assert _codes(src, "client.py") == [(4, "PL303")]


def test_the_last_entries_of_a_memory_joined_into_the_history_text() -> None:
    # A local-model agent keeps its exchanges in `self.exchanges` and formats the last few
    # into the prompt's {history}; the same slice bound to another name is no history.
    src = (
        "class LocalAgent:\n"
        "    TEMPLATE = '{history}\\nUser: {text}\\nBot:'\n"
        "    def prompt(self, text):\n"
        "        history = '\\n'.join(self.exchanges[-4:])\n"
        "        return self.TEMPLATE.format(history=history, text=text)\n"
        "    def recent(self):\n"
        "        shown = ', '.join(self.exchanges[-4:])\n"
        "        return shown\n"
    )
    assert _codes(src, "local.py") == [(4, "PL303")]


def test_a_budget_loop_over_a_copy_of_the_turns() -> None:
    # The newest turns kept while their token count fits, walked over a list copied from them.
    src = (
        "def fit(turns, max_tokens, count):\n"
        "    kept, total = [], 0\n"
        "    ordered = list(turns)\n"
        "    for turn in reversed(ordered):\n"
        "        cost = count(turn)\n"
        "        if total + cost > max_tokens:\n"
        "            break\n"
        "        total += cost\n"
        "        kept.append(turn)\n"
        "    return kept[::-1]\n"
        "def marker(n):\n"
        "    return {'role': 'system', 'content': f'{n} earlier turns left out'}\n"
    )
    assert _codes(src, "fit.py") == [(4, "PL303")]


def test_a_framework_summariser_is_reported_with_its_own_advice() -> None:
    # LangChain's SummarizationMiddleware, used or subclassed: it replaces older messages by a
    # summary, one cache miss per summary (not every turn), so the advice is to keep it rare.
    src = (
        "from langchain.agents import create_agent\n"
        "from langchain.agents.middleware import SummarizationMiddleware\n"
        "class QuietSummary(SummarizationMiddleware):\n"
        "    pass\n"
        "agent = create_agent('m', tools=[], middleware=[SummarizationMiddleware(model='m')])\n"
    )
    found = lint_source(src, "graph.py")
    assert [(f.line, f.code) for f in found] == [(3, "PL303"), (5, "PL303")]
    assert all("trigger it rarely" in f.message for f in found)


# --- Python sinks -------------------------------------------------------------------------


def test_a_clock_appended_to_an_agents_system_prompt() -> None:
    # A per-step hook adds the time to the agent's system prompt with `+=`.
    src = (
        "from datetime import datetime\n"
        "class TimeHook:\n"
        "    async def before_step(self, agent):\n"
        "        agent.system_prompt += f'\\nNow: {datetime.now():%H:%M}'\n"
    )
    assert _codes(src, "hook.py") == [(4, "PL101")]


def test_a_constant_that_reads_like_a_system_prompt() -> None:
    # A module constant of any name that opens like a persona is a system prompt; upper-case
    # names only are constants (a local `prompt = "You are given ..."` is often a user turn).
    # (The clock read at import into a constant is no finding: the process id stands in.)
    src = (
        "import datetime, os\n"
        "HEADER = (\n"
        "    'You are Ledger, a bookkeeping assistant. Worker '\n"
        "    + str(os.getpid())\n"
        ")\n"
        "def ask(query):\n"
        "    question = 'You are given a list: ' + str(datetime.datetime.now())\n"
        "    return question\n"
    )
    found = lint_source(src, "prompts.py")
    assert [(f.line, f.code, f.severity) for f in found] == [(4, "PL106", "warning")]


def test_an_upper_case_system_prompt_constant_alone_in_its_file() -> None:
    # The pre-filter read only lower-case hints, so a file holding nothing but
    # `SYSTEM_PROMPT = ...` was never analysed.
    src = "import uuid\nSYSTEM_PROMPT = 'Reply briefly. Session: ' + str(uuid.uuid4())\n"
    assert _codes(src, "consts.py") == [(2, "PL103")]


def test_a_context_provider_renders_into_the_system_prompt() -> None:
    # atomic-agents renders each context provider's get_info() into the system prompt per run.
    src = (
        "from datetime import datetime\n"
        "from atomic_agents.context import BaseDynamicContextProvider\n"
        "class ClockProvider(BaseDynamicContextProvider):\n"
        "    def get_info(self) -> str:\n"
        "        return 'It is ' + datetime.now().isoformat()\n"
        "class Plain:\n"
        "    def info(self) -> str:\n"
        "        return 'It is ' + datetime.now().isoformat()\n"
    )
    assert _codes(src, "providers.py") == [(5, "PL101")]


def test_context_built_for_the_query_into_a_builders_system_message() -> None:
    # A search engine builds context for each query and writes it into the system message
    # through a message builder; what is retrieved on a task's first turn only is set once.
    src = (
        "class Answerer:\n"
        "    def answer(self, query, history):\n"
        "        found = self.context_builder.build_context(query=query)\n"
        "        text = self.template.format(context=found.text)\n"
        "        msgs = Builder().add_system_message(text).add_user_message(query).build()\n"
        "        return self.llm.chat(messages=[*msgs, *history])\n"
        "class Planner:\n"
        "    def plan(self, query):\n"
        "        if self.turn_count == 0:\n"
        "            notes = self.kb.retrieve_notes(query=query)\n"
        "            self.worker.set_system_prompt(self.base + notes)\n"
        "        self.turn_count += 1\n"
    )
    assert _codes(src, "answer.py") == [(3, "PL304")]


# --- TypeScript / JavaScript ----------------------------------------------------------------


def test_a_date_slot_in_a_system_prompt_constant() -> None:
    # A template this module fills: the slot's name says it holds the clock; other slots and a
    # `${...}` substitution of a fixed value do not.
    ts = (
        "export const BASE_SYSTEM_PROMPT = `You help with travel.\n"
        "{profile}\n"
        "Local time: {local_time}`;\n"
        "export const GREETING_SYSTEM = 'Greet {user_name} warmly.';\n"
        "export const render = (t: string, values: Record<string, string>) =>\n"
        "  t.replace('{local_time}', values.now);\n"
    )
    found = lint_source(ts, "prompts.ts")
    # (The fill at line 6 is the replace rule's own finding.)
    assert [(f.line, f.code) for f in found] == [(1, "PL101"), (6, "PL101")]
    assert "line 3" in found[0].message
    # Filled with named values (`format({ local_time })`), likewise.
    keyed = ts.replace("t.replace('{local_time}', values.now)", "format(t, { local_time: now() })")
    assert [(f.line, f.code) for f in lint_source(keyed, "prompts.ts")] == [(1, "PL101")]


def test_a_date_slot_no_code_here_fills_is_no_finding() -> None:
    # A settings form's default prompt, a persona table: the template only carries the slot,
    # and nothing in the module fills it; whatever fills it (and with what) is read where
    # that happens. A string merely naming the slot's word is no filling either.
    ts = (
        "export const BASE_SYSTEM_PROMPT = `You help with travel.\n"
        "Local time: {local_time}`;\n"
        "export const label = 'Shows the local time';\n"
        "export function Field() { return show(BASE_SYSTEM_PROMPT, 'prompt'); }\n"
    )
    assert lint_source(ts, "prompts.ts") == []


def test_a_macro_filled_with_the_clock_by_a_regex_replace() -> None:
    # A prompt-macro engine: each `{{...}}` pattern is replaced by what a callback returns.
    js = (
        "export function expandMacros(text) {\n"
        "  text = text.replace(/{{today}}/gi, () => dayjs().format('YYYY-MM-DD'));\n"
        "  text = text.replace(/{{user}}/gi, () => currentUserName());\n"
        "  return text;\n"
        "}\n"
    )
    assert _codes(js, "macros.js") == [(2, "PL101")]


def test_a_clock_in_a_jsx_system_message() -> None:
    # AI.JSX-style components: the time is rendered into a fragment placed in <SystemMessage>.
    tsx = (
        "import { SystemMessage } from 'ai-jsx/core/conversation';\n"
        "export function Assistant() {\n"
        "  const clock = <>The time is {new Date().toTimeString()}.</>;\n"
        "  return <SystemMessage>{clock} Be brief.</SystemMessage>;\n"
        "}\n"
    )
    found = lint_source(tsx, "assistant.tsx")
    assert [(f.line, f.code) for f in found] == [(3, "PL101")]


def test_a_typescript_budget_loop_over_the_reversed_history() -> None:
    ts = (
        "export function fit(system: string, turns: Msg[], limitTokens: number) {\n"
        "  const out = new Builder(system);\n"
        "  for (const m of turns.slice(0, -1).reverse()) {\n"
        "    if (out.tokenCount >= limitTokens) break;\n"
        "    out.add(m);\n"
        "  }\n"
        "  for (const m of options.reverse()) {\n"
        "    if (m.size > limitTokens) break;\n"
        "  }\n"
        "  return out.messages;\n"
        "}\n"
    )
    assert _codes(ts, "fit.ts") == [(3, "PL303")]


def test_memories_searched_per_call_into_a_configured_system_prompt() -> None:
    # A LangGraph.js node: the memories of the user (searched by a namespace built from a
    # config parameter, no query) fill a slot of the system prompt read from the config.
    ts = (
        "async function respond(state: State, config: Config) {\n"
        "  const notes = await store.search(['notes', config.userId], { limit: 5 });\n"
        "  const memories = notes.map((n) => n.value).join('\\n');\n"
        "  const persona = config.systemPrompt.replace('{memories}', memories);\n"
        "  return model.invoke([{ role: 'system', content: persona }, ...state.messages]);\n"
        "}\n"
    )
    found = lint_source(ts, "graph.ts")
    assert [(f.line, f.code) for f in found] == [(4, "PL304")]


def test_a_summary_placed_ahead_of_the_recent_messages() -> None:
    # A conversation manager folds the older messages into a summary message and keeps the
    # recent ones after it: as one list, or built a statement at a time. A list that only
    # mentions a summary after the history (a report) is no rewrite.
    src = (
        "class Compactor:\n"
        "    def reduce(self, agent, cut):\n"
        "        older, recent_messages = agent.messages[:cut], agent.messages[cut:]\n"
        "        self.summary_msg = self.summarise(older)\n"
        "        agent.messages[:] = [self.summary_msg] + recent_messages\n"
        "    def rebuild(self, system, summary_message, kept_turns):\n"
        "        out = [system]\n"
        "        out.append(summary_message)\n"
        "        out.extend(kept_turns)\n"
        "        return out\n"
        "    def report(self, messages, summary):\n"
        "        return [*messages, summary]\n"
    )
    found = lint_source(src, "compactor.py")
    assert [(f.line, f.code) for f in found] == [(5, "PL303"), (9, "PL303")]
    assert all("trigger it rarely" in f.message for f in found)


def test_a_date_in_the_one_user_prompt_of_an_ai_sdk_call() -> None:
    # A one-off request with the AI SDK: the date reaches only `prompt`, the request's single
    # user message, whether passed as `prompt` or `prompt: prompt`; in the `system` of a
    # conversation (`messages: history`) it is a breaker.
    ts = (
        "export async function suggestTimes(thread: string, model: Model, history: M[]) {\n"
        "  const today = new Date().toISOString().split('T')[0];\n"
        "  const prompt = `Today is ${today}.\\n<thread>${thread}</thread>`;\n"
        "  await generateText({ model, system: 'Find free slots.', prompt });\n"
        "  const system = `Find free slots. Today is ${today}.`;\n"
        "  return generateText({ model, system: system, messages: history });\n"
        "}\n"
    )
    found = lint_source(ts, "availability.ts")
    assert [(f.line, f.code) for f in found] == [(5, "PL102")]
