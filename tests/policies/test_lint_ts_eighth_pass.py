"""The eighth TypeScript pass: reporting paths that now ask for evidence that the value reaches
a repeated prefix (a system prompt, a chat's prompt, a template this module fills), each with
the near miss that still reports."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes

_PLAN = (
    "export function buildDailyPlanPrompt(level, stats, date) {\n"
    "  return `Make a one-day study plan for level ${level}.\n"
    "Date: ${date}\n"
    "Stats: ${JSON.stringify(stats)}`\n"
    "}\n"
)


def test_a_date_known_by_its_name_in_a_task_prompt_is_no_finding() -> None:
    # A parameter named `date` in a task prompt's builder: no clock is read, and neither the
    # builder's name nor a caller here places the text in a system prompt.
    assert _codes(_PLAN, "teacher.js") == []


def test_a_clock_in_the_same_task_prompt_is_still_reported() -> None:
    # The evidence is a clock read: then the builder's text holds today's date, as before.
    clock = _PLAN.replace("Date: ${date}", "Date: ${new Date().toDateString()}")
    assert _codes(clock, "teacher.js") == [(3, "PL102")]


def test_a_date_by_its_name_in_a_system_prompt_builder_is_reported() -> None:
    named = _PLAN.replace("buildDailyPlanPrompt", "buildDailyPlanSystemPrompt")
    assert _codes(named, "teacher.js") == [(3, "PL102")]
    placed = _PLAN + (
        "export async function reply(client, history, level, stats, date) {\n"
        "  return client.create({ model: 'm', messages: [\n"
        "    { role: 'system', content: buildDailyPlanPrompt(level, stats, date) },\n"
        "    ...history,\n"
        "  ] })\n"
        "}\n"
    )
    assert (3, "PL102") in _codes(placed, "teacher.js")


_COACH = (
    "export function buildCoachPrompt(level, userMessage) {\n"
    "  return `You coach a learner at ${level}.\n"
    "The learner asks:\n"
    "${userMessage}`\n"
    "}\n"
)


def test_the_question_in_a_one_shot_prompt_builder_is_no_finding() -> None:
    # The learner's question is this prompt's own text: the user's turn of a one-shot request.
    assert _codes(_COACH, "teacher.js") == []


def test_the_question_in_a_builder_placed_as_the_system_prompt_is_reported() -> None:
    placed = _COACH + (
        "export async function reply(client, history, level, userMessage) {\n"
        "  const system = buildCoachPrompt(level, userMessage)\n"
        "  return client.create({ model: 'm', system, messages: history })\n"
        "}\n"
    )
    assert (4, "PL304") in _codes(placed, "teacher.js")


_DASHBOARD = (
    "exports.listConversations = async (req, res) => {\n"
    "  const { page = 1, limit = 10 } = req.query\n"
    "  const conversations = await Conversation.find({ admin: req.admin._id })\n"
    "    .sort({ updatedAt: -1 })\n"
    "    .limit(limit * 1)\n"
    "    .skip((page - 1) * limit)\n"
    "  res.json({ conversations })\n"
    "}\n"
)


def test_newest_rows_a_handler_answers_a_client_with_are_no_window() -> None:
    # An admin route reads a page of the newest stored conversations and writes them to its
    # response: no model is asked, so no prompt's history is cut.
    assert _codes(_DASHBOARD, "controller.js") == []


def test_newest_rows_a_handler_sends_to_a_model_are_still_a_window() -> None:
    sent = _DASHBOARD.replace(
        "  res.json({ conversations })\n",
        "  const reply = await openai.chat.completions.create({ model: 'm', messages: [\n"
        "    { role: 'system', content: SYSTEM }, ...conversations ] })\n"
        "  res.json({ reply })\n",
    )
    assert (3, "PL303") in _codes(sent, "controller.js")


_PROBE = (
    "async function main(): Promise<void> {\n"
    "  const mem = new ConversationMemory({ maxMessages: 4, keepRecent: 2 })\n"
    "  mem.addUser('a', 'hello')\n"
    "  const res = await llm.chat({ system: SYSTEM, messages: mem.recent() })\n"
    "  console.log(res.text)\n"
    "}\n"
    "main().catch((e) => { console.error(e); process.exit(1) })\n"
)


def test_a_window_in_a_scripts_one_run_is_no_finding() -> None:
    # A probe script: one function run once from module level, with no loop; it sends one
    # request, so the window it keeps never moves between requests.
    assert _codes(_PROBE, "probe.ts") == []


def test_a_window_in_a_script_that_loops_or_is_called_again_is_reported() -> None:
    looped = _PROBE.replace(
        "  const res = await llm.chat(", "  for (const q of questions) await llm.chat("
    )
    assert (2, "PL303") in _codes(looped, "probe.ts")
    twice = _PROBE + "setInterval(() => main(), 1000)\n"
    assert (2, "PL303") in _codes(twice, "probe.ts")
    exported = _PROBE.replace("async function main", "export async function main")
    assert (2, "PL303") in _codes(exported, "probe.ts")


_WORKER = (
    "import { readdirSync } from 'fs'\n"
    "export async function runWorker(task, provider, initial) {\n"
    "  let messages\n"
    "  if (initial) {\n"
    "    messages = [...initial]\n"
    "  } else {\n"
    "    const skills = readdirSync('skills').join('\\n')\n"
    "    const systemPrompt = `You are a worker.\\n${skills}`\n"
    "    messages = [{ role: 'system', content: systemPrompt }, { role: 'user', content: task }]\n"
    "  }\n"
    "  for (let i = 0; i < 10; i++) {\n"
    "    const r = await provider.create({ model: 'm', messages })\n"
    "    messages.push(r.message)\n"
    "  }\n"
    "}\n"
)


def test_a_listing_in_a_fresh_runs_system_prompt_built_before_its_loop_is_no_finding() -> None:
    # The worker assigns a fresh list (its system prompt and the task) and then sends every
    # request of the run from its loop: the listing is read once, the same for all of them.
    assert _codes(_WORKER, "worker.ts") == []


def test_a_listing_read_inside_the_loop_is_still_reported() -> None:
    inside = _WORKER.replace(
        "    messages.push(r.message)\n",
        "    messages.push(r.message)\n"
        "    messages[0] = { role: 'system', content: readdirSync('skills').join('\\n') }\n",
    )
    assert {code for _, code in _codes(inside, "worker.ts")} & {"PL105", "PL203"}


_SECTIONS = (
    "import { readdirSync } from 'fs'\n"
    "const cache = new Map<string, string[]>()\n"
    "function readSections(mode: string): string[] {\n"
    "  const cached = cache.get(mode)\n"
    "  if (cached) return cached\n"
    "  const files = readdirSync(mode)\n"
    "  cache.set(mode, files)\n"
    "  return files\n"
    "}\n"
    "export function buildSystemPrompt(mode: string): string {\n"
    "  return readSections(mode).join('\\n')\n"
    "}\n"
)


def test_a_listing_memoised_through_a_local_read_of_the_cache_is_no_finding() -> None:
    # `const cached = cache.get(mode); if (cached) return cached`: read once per mode for the
    # life of the process, the same bytes after the first call. (The mode handed in, which picks
    # the sections, is another question: PL302, tests/policies/test_lint_ts_mode_sections.py.)
    assert "PL105" not in {code for _, code in _codes(_SECTIONS, "context.ts")}


def test_a_listing_whose_cache_is_never_filled_is_still_reported() -> None:
    unfilled = _SECTIONS.replace("  cache.set(mode, files)\n", "")
    assert "PL105" in {code for _, code in _codes(unfilled, "context.ts")}


_LOOP = (
    "export async function runWorker(task, provider, tools, initial) {\n"
    "  let messages\n"
    "  if (initial) messages = [...initial]\n"
    "  else messages = [{ role: 'system', content: SYSTEM }, { role: 'user', content: task }]\n"
    "  for (let i = 0; i < 10; i++) {\n"
    "    const response = await provider.createWithTools(messages, 'm', tools)\n"
    "    messages.push(response.message)\n"
    "    if (messages[1]?.role === 'system') messages.splice(1, 1)\n"
    "  }\n"
    "}\n"
)


def test_a_message_dropped_from_a_list_a_loop_sends_by_position_is_reported() -> None:
    # The list goes to the call by position, whatever its name, and the loop that sends it
    # pushes onto it: a conversation kept between requests. Dropping its second message
    # changes the prefix right after the system prompt.
    assert _codes(_LOOP, "worker.ts") == [(8, "PL303")]


def test_a_list_handed_by_position_that_no_loop_grows_is_no_request() -> None:
    # Sent once (no loop pushes onto it), or a list of no messages: nothing kept to break.
    once = _LOOP.replace("    messages.push(response.message)\n", "")
    assert _codes(once, "worker.ts") == []
    dropped_last = _LOOP.replace("messages.splice(1, 1)", "messages.splice(-1, 1)")
    assert _codes(dropped_last, "worker.ts") == []


def test_a_date_slot_of_a_template_this_module_renders_is_reported() -> None:
    # The module fills the template's other slots itself (`PROMPT.replace(/{{ID}}/g, id)`):
    # it is the renderer, and the date slot is filled the same way when a request is built.
    ts = (
        "const PROMPT = `You are connected to {{ID}}.\n"
        "Date: {{CURRENT_DATE}}`\n"
        "export function getPrompt(id: string) {\n"
        "  return PROMPT.replace(/{{ID}}/g, id)\n"
        "}\n"
    )
    assert (1, "PL102") in _codes(ts, "prompts.ts")
    shown = ts.replace("PROMPT.replace(/{{ID}}/g, id)", "show(PROMPT, id)")
    assert _codes(shown, "prompts.ts") == []
