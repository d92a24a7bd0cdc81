"""One-off requests against conversations: a request whose messages are a literal system/user
pair (no history spliced in, no list grown by `append`/`push`, no `messages` handed in) has no
conversation's prefix after its system prompt, so a date or the question in that system prompt
breaks no cache (the labels' one-shot rule); a clock reading still does, as it changes on every
repeat of the same request. The same value in the system prompt of a conversation is still
found: each case has its twin."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(text: str, path: str) -> set[str]:
    return {f.code for f in lint_source(text, path, model="claude-sonnet-4-6")}


# --- TypeScript ---------------------------------------------------------------------------

CLASSIFY_TS = """import OpenAI from "openai";
const openai = new OpenAI();

export async function classify(text: string, history: any[]) {
  return openai.chat.completions.create({
    model: "gpt-4o",
    messages: [
      { role: "system", content: `Sort support tickets. ${new Date().toLocaleDateString()}` },
      HISTORY
      { role: "user", content: text },
    ],
  });
}
"""


def test_ts_date_in_a_one_off_system_message_is_not_reported() -> None:
    assert "PL102" not in _codes(CLASSIFY_TS.replace("HISTORY", ""), "classify.ts")


def test_ts_date_in_a_conversations_system_message_is_reported() -> None:
    assert "PL102" in _codes(CLASSIFY_TS.replace("HISTORY", "...history,"), "chat.ts")


TITLE_TS = """import { generateText } from "ai";

export async function title(userQuestion: string, history: any[]) {
  return generateText({
    model: "m",
    system: `Write a short title. It is ${new Date().toLocaleDateString()}. About: ${userQuestion}`,
    SENT,
  });
}
"""


def test_ts_one_prompt_request_quiets_the_date_and_the_question() -> None:
    codes = _codes(TITLE_TS.replace("SENT", "prompt: userQuestion"), "title.ts")
    assert not codes & {"PL102", "PL304"}


def test_ts_the_same_system_text_beside_a_history_is_reported() -> None:
    codes = _codes(TITLE_TS.replace("SENT", "messages: history"), "chat.ts")
    assert {"PL102", "PL304"} <= codes


LOOP_TS = """import OpenAI from "openai";
const openai = new OpenAI();

export async function run(text: string) {
  const now = new Date().toLocaleDateString();
  const messages = [
    { role: "system", content: `You are a helper. Now: ${now}` },
    { role: "user", content: text },
  ];
  const r = await openai.chat.completions.create({ model: "gpt-4o", messages });
  GROW
  return r;
}
"""


def test_ts_a_local_pair_sent_once_is_a_one_off() -> None:
    assert "PL102" not in _codes(LOOP_TS.replace("GROW", ""), "run.ts")


def test_ts_a_local_pair_that_grows_is_a_conversation() -> None:
    grow = "messages.push(r.choices[0].message);"
    assert "PL102" in _codes(LOOP_TS.replace("GROW", grow), "run.ts")


MEMORY_TS = """import { SystemMessage, HumanMessage } from "@langchain/core/messages";

export async function update(model: any, query: string, history: any[]) {
  const NAME = `<new_statement>
${query.trim()}
</new_statement>`;
  return model.invoke([new SystemMessage("You keep a memory list."), ...history, SENT]);
}
"""


def test_ts_a_human_prompt_is_the_users_turn() -> None:
    src = MEMORY_TS.replace("NAME", "humanPrompt").replace("SENT", "new HumanMessage(humanPrompt)")
    assert "PL304" not in _codes(src, "memory.ts")


def test_ts_the_question_in_a_system_prompt_is_reported() -> None:
    src = MEMORY_TS.replace("NAME", "systemPrompt").replace(
        "SENT", "new HumanMessage(systemPrompt)"
    )
    assert "PL304" in _codes(src, "memory.ts")


# --- Python -------------------------------------------------------------------------------

REQUEST_PY = """import datetime

import anthropic

client = anthropic.Anthropic()


def answer(question, history):
    today = datetime.date.today().isoformat()
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        system=f"You write commit titles. Today: {today}",
        messages=SENT,
    )
"""


def test_py_date_in_the_system_of_a_one_off_request_is_not_reported() -> None:
    src = REQUEST_PY.replace("SENT", '[{"role": "user", "content": question}]')
    assert "PL102" not in _codes(src, "title.py")


def test_py_date_in_the_system_of_a_conversation_is_reported() -> None:
    assert "PL102" in _codes(REQUEST_PY.replace("SENT", "history"), "chat.py")


def test_py_date_beside_a_local_user_list_that_grows_is_reported() -> None:
    src = REQUEST_PY.replace(
        "    today = ", '    turns = [{"role": "user", "content": question}]\n    today = '
    ).replace("SENT", "turns")
    assert "PL102" not in _codes(src, "title.py")
    grown = src.replace("    return client", "    turns.extend(history)\n    return client")
    assert "PL102" in _codes(grown, "chat.py")


RECALL_PY = """def reply(client, memory, user_message):
    facts = memory.search_text_memories(query=user_message)
    messages = [
        {"role": "system", "content": f"You are a helper. Known facts: {facts}"},
        {"role": "user", "content": user_message},
    ]
    while True:
        out = client.chat.completions.create(model="gpt-4o", messages=messages)
        GROW
"""


def test_py_what_was_fetched_for_a_one_off_is_not_reported() -> None:
    assert "PL304" not in _codes(RECALL_PY.replace("GROW", "break"), "ask.py")


def test_py_a_message_list_that_grows_is_a_conversation() -> None:
    grow = 'messages.append({"role": "assistant", "content": out})'
    assert "PL304" in _codes(RECALL_PY.replace("GROW", grow), "chat.py")


def test_a_clock_in_a_one_off_system_prompt_is_reported_only_where_caching_is_asked() -> None:
    # Decided by the request the value reaches (`policies/reach.py`): no later request reads a
    # one-off's prefix again, so its clock breaks no cache (the labels of the later corpora
    # judge it so), unless the request marks its prefix for caching: then it means to send
    # that prefix again (a classifier per ticket), and the clock defeats it.
    ts = CLASSIFY_TS.replace("HISTORY", "").replace("toLocaleDateString", "toISOString")
    assert "PL101" not in _codes(ts, "classify.ts")
    marked = ts.replace('model: "gpt-4o",', 'model: "gpt-4o", prompt_cache_key: "tickets",')
    assert "PL101" in _codes(marked, "classify.ts")
    py = REQUEST_PY.replace("SENT", '[{"role": "user", "content": question}]').replace(
        "datetime.date.today()", "datetime.datetime.now()"
    )
    assert "PL101" not in _codes(py, "title.py")
    assert "PL101" in _codes(py.replace("messages=[", "messages=[*history, "), "chat.py")
    marked_py = py.replace(
        "max_tokens=100,", 'max_tokens=100, cache_control={"type": "ephemeral"},'
    )
    assert "PL101" in _codes(marked_py, "title.py")


NAMED_TS = """export function build(history: any[], userQuery: string, agents: string) {
  const NAME = TEXT;
  return [{ role: "system", content: `Rules. ${NAME}` }, ...history];
}
"""


def test_ts_a_constant_or_a_system_prompt_is_not_the_current_request_by_its_name() -> None:
    constant = NAMED_TS.replace("NAME", "CURRENT_REQUEST_REMINDER").replace(
        "TEXT", '"Answer the current request only."'
    )
    assert "PL304" not in _codes(constant, "prompt.ts")
    system = NAMED_TS.replace("NAME", "newSystemPrompt").replace("TEXT", "`Route: ${agents}`")
    assert "PL304" not in _codes(system, "prompt.ts")


def test_ts_the_users_query_in_a_conversations_system_prompt_is_reported() -> None:
    src = NAMED_TS.replace("NAME", "currentQuery").replace("TEXT", "userQuery")
    assert "PL304" in _codes(src, "prompt.ts")


BUILDER_TS = """import { buildTaskPrompt, buildTaskSystemPrompt } from "./prompts";
import { getBranch } from "./git";

export function start(agent: any, instruction: string) {
  const systemPrompt = buildTaskSystemPrompt();
  const NAME = buildTaskPrompt({ instruction, currentBranch: getBranch() });
  console.log(NAME.length);
  return agent.stream({ prompt: PROMPT, systemPrompt: SYSTEM });
}
"""


def test_ts_a_built_prompt_sent_as_the_users_prompt_is_their_turn() -> None:
    src = BUILDER_TS.replace("NAME", "prompt").replace("PROMPT", "prompt")
    assert "PL104" not in _codes(src.replace("SYSTEM", "systemPrompt"), "run.ts")


def test_ts_the_same_builder_for_the_system_prompt_is_reported() -> None:
    src = BUILDER_TS.replace("NAME", "taskSystemPrompt").replace("PROMPT", "instruction")
    assert "PL104" in _codes(src.replace("SYSTEM", "taskSystemPrompt"), "run.ts")


ONE_TEXT_TS = """import { aiGenerate, appendGuard } from "./ai";

export async function digest(items: string[]) {
  const dateStr = new Date().toLocaleDateString();
  const prompt = `Write the digest of ${dateStr}: ${items.join(", ")}`;
  return SEND;
}
"""


def test_ts_a_prompt_sent_as_one_text_is_a_one_off_request() -> None:
    assert "PL102" not in _codes(ONE_TEXT_TS.replace("SEND", "aiGenerate(prompt)"), "d.ts")


def test_ts_a_prompt_handed_to_a_transform_is_still_a_prefix() -> None:
    src = ONE_TEXT_TS.replace("SEND", "{ system: appendGuard(prompt), messages: items }")
    assert "PL102" in _codes(src, "d.ts")
