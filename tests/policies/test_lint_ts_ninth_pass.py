"""The ninth TypeScript pass: a window of any list followed to where it is sent after a
system prompt (a system message held in a local, a loop that pushes each kept item), each with
the near misses that stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths
from tests.helpers.lintfind import line_codes as _codes

_NAMED_SYSTEM = (
    "export async function speak(client, base, persona) {\n"
    "  const working = [...base]\n"
    "  const system = { role: 'system', content: persona }\n"
    "  const payload = [system, ...working.slice(-10).map((m) => ({ role: m.role, t: m.t }))]\n"
    "  return client.chat(payload)\n"
    "}\n"
)


def test_a_window_spread_after_a_system_message_held_in_a_local_is_reported() -> None:
    assert (4, "PL303") in _codes(_NAMED_SYSTEM, "round.ts")


def test_a_window_spread_after_a_local_that_is_no_system_message_is_no_finding() -> None:
    # The local holds a user message: the list starts with the newest question, not a prompt.
    user = _NAMED_SYSTEM.replace("role: 'system'", "role: 'user'")
    assert (4, "PL303") not in _codes(user, "round.ts")


def test_the_first_items_of_a_list_after_a_named_system_message_are_no_window() -> None:
    # `slice(0, 10)` keeps the oldest ten: a stable prefix.
    oldest = _NAMED_SYSTEM.replace("working.slice(-10)", "working.slice(0, 10)")
    assert (4, "PL303") not in _codes(oldest, "round.ts")


_PUSHED = (
    "export async function send(ref, userMsg, limit, invoke) {\n"
    "  const context = [{ role: 'system', content: 'You are a helper.' }]\n"
    "  const recent = [...ref.current, userMsg].filter((m) => !m.loading).slice(-limit)\n"
    "  for (const msg of recent) {\n"
    "    context.push({ role: msg.role, content: msg.content })\n"
    "  }\n"
    "  await invoke('chat', { messages: context })\n"
    "}\n"
)


def test_a_window_pushed_item_by_item_after_a_system_message_is_reported() -> None:
    assert _codes(_PUSHED, "useChat.ts") == [(3, "PL303")]


def test_a_window_pushed_onto_a_list_with_no_system_message_is_no_finding() -> None:
    # Nothing stable comes first: the window is the whole request, no prefix to break.
    bare = _PUSHED.replace("[{ role: 'system', content: 'You are a helper.' }]", "[]")
    assert _codes(bare, "useChat.ts") == []


def test_a_loop_over_another_list_does_not_send_the_window() -> None:
    # The loop pushes the pinned notes, not the cut list: the window goes nowhere here.
    other = _PUSHED.replace("for (const msg of recent)", "for (const msg of ref.pinned)")
    assert _codes(other, "useChat.ts") == []


def test_a_loop_that_pushes_each_item_elsewhere_is_no_finding() -> None:
    # Each kept item is pushed onto a display list, not the request's.
    shown = _PUSHED.replace("context.push({", "shownRows.push({")
    assert _codes(shown, "useChat.ts") == []


_STORED_LOG = (
    "export async function upsert(ctx, existing, summary, now) {\n"
    "  const updates = { updated_at: now }\n"
    "  const history = existing.interaction_history ?? []\n"
    "  updates.interaction_history = [...history, { summary, date: now }].slice(-50)\n"
    "  await ctx.db.patch(existing._id, updates)\n"
    "}\n"
)


def test_a_log_cut_to_its_newest_entries_in_a_stored_record_is_no_window() -> None:
    # The store keeps the newest fifty entries of a log; no request is sent from here.
    assert _codes(_STORED_LOG, "callers.ts") == []


def test_the_same_cut_sent_after_a_system_prompt_is_still_reported() -> None:
    # The record field is not written to a store but sent: the window is the request's.
    sent = _STORED_LOG.replace(
        "  await ctx.db.patch(existing._id, updates)\n",
        "  await chat([{ role: 'system', content: 'Hi' }, ...updates.interaction_history])\n",
    )
    assert _codes(sent, "callers.ts") == [(4, "PL303")]


def test_a_history_cut_into_a_local_beside_a_store_write_is_still_reported() -> None:
    # The write stores another record; the cut history is what the request sends.
    local = (
        "export async function reply(ctx, history, id, updates, client) {\n"
        "  const recent = history.slice(-20)\n"
        "  await ctx.db.patch(id, updates)\n"
        "  return client.create({ messages: [{ role: 'system', content: 'Hi' }, ...recent] })\n"
        "}\n"
    )
    assert _codes(local, "reply.ts") == [(2, "PL303")]


_DRAFT = (
    "export function NewPrompt({ setPromptDraft }) {\n"
    "  const id = uuidv4()\n"
    "  setPromptDraft({ id, name: '', mainPrompt: '' })\n"
    "}\n"
)


def test_a_random_id_of_a_record_handed_to_a_prompt_named_setter_is_no_finding() -> None:
    # The id names the new draft; it is no text of any prompt.
    assert _codes(_DRAFT, "PromptTab.tsx") == []


def test_a_random_value_in_a_text_field_of_the_same_record_is_still_reported() -> None:
    noted = _DRAFT.replace("mainPrompt: ''", "mainPrompt: `seed ${uuidv4()}`")
    assert (3, "PL103") in _codes(noted, "PromptTab.tsx")


_NORMALISED = (
    "function normalize(info, lore) {\n"
    "  return { title: info.title ?? 'Untitled', mode: 'chat', lorebook: lore }\n"
    "}\n"
    "export default async function handler(req, res) {\n"
    "  const { messages, info: raw } = req.body\n"
    "  const lore = messages.map((m) => m.content).join('\\n')\n"
    "  const info = normalize(raw, lore)\n"
    "  const systemPrompt = `Mode: ${info.mode}\n"
    "Lore: ${info.lorebook}`\n"
    "  const out = await client.chat.completions.create({\n"
    "    model: 'm',\n"
    "    messages: [{ role: 'system', content: systemPrompt }, ...messages],\n"
    "  })\n"
    "  res.json(out)\n"
    "}\n"
)


def test_a_field_of_a_returned_record_made_from_the_messages_is_reported_at_its_line() -> None:
    # `info.lorebook` is the scan of this request's messages; `info.mode`, a literal, is the
    # near miss on the line before: no finding there.
    assert _codes(_NORMALISED, "chat.ts") == [(9, "PL304")]


def test_a_returned_record_built_otherwise_than_as_a_literal_is_read_whole() -> None:
    # A record the function does not spell out field by field: every field may hold the scan.
    spread = _NORMALISED.replace(
        "return { title: info.title ?? 'Untitled', mode: 'chat', lorebook: lore }",
        "return { ...info, lorebook: lore }",
    )
    assert (8, "PL304") in _codes(spread, "chat.ts")


_ROUND = (
    "export async function round(base, speakers, ask) {\n"
    "  const working = [...base]\n"
    "  for (const speaker of speakers) {\n"
    "    const content = `You are ${speaker.name}.`\n"
    "    const system = { role: 'system', content }\n"
    "    const payload = [system, ...working.map((m) => ({ role: m.role, content: m.content }))]\n"
    "    const text = await ask(speaker.name, payload as any)\n"
    "    working.push({ role: 'assistant', content: text })\n"
    "  }\n"
    "}\n"
)


def test_a_per_speaker_system_prompt_ahead_of_a_history_the_loop_extends_is_reported() -> None:
    # Each pass sends the list built over `working` and pushes its reply onto `working`: a
    # conversation, whatever `ask` is named; its system message changes with the speaker.
    assert _codes(_ROUND, "round.ts") == [(4, "PL304")]


def test_the_same_loop_under_one_system_prompt_is_no_finding() -> None:
    fixed = _ROUND.replace("`You are ${speaker.name}.`", "'You take part in a roundtable.'")
    assert _codes(fixed, "round.ts") == []


def test_a_loop_that_extends_no_list_sent_is_no_conversation() -> None:
    # The replies go to another list: each pass is a one-off request of its own.
    apart = _ROUND.replace("working.push(", "shown.push(")
    assert _codes(apart, "round.ts") == []


_CUSTOMER = (
    "export async function reply(ctx, args, history) {\n"
    "  const customer = await ctx.runQuery(getCustomer, { phone: args.phone })\n"
    "  const systemPrompt = `You are Becca.\\nTotal interactions: ${customer.callCount}`\n"
    "  return ctx.chat([{ role: 'system', content: systemPrompt }, ...history])\n"
    "}\n"
)


def test_a_customers_running_interaction_count_in_a_system_prompt_is_reported() -> None:
    assert _codes(_CUSTOMER, "ai.ts") == [(3, "PL106")]


def test_a_setting_of_the_calls_in_the_system_prompt_is_no_finding() -> None:
    # `callTimeout` is a setting of the calls, not a tally of them.
    setting = _CUSTOMER.replace("customer.callCount", "customer.callTimeout")
    assert _codes(setting, "ai.ts") == []


def test_the_count_in_the_newest_user_message_is_no_finding() -> None:
    # After the history, in the newest turn: nothing cached follows it.
    user = _CUSTOMER.replace("systemPrompt =", "note =").replace(
        "[{ role: 'system', content: systemPrompt }, ...history]",
        "[{ role: 'system', content: 'You are Becca.' }, ...history, { role: 'user', "
        "content: note }]",
    )
    assert _codes(user, "ai.ts") == []


_ATTRIBUTE = (
    "export class Bot {\n"
    "  items = []\n"
    "  async send(client, sys) {\n"
    "    this.kept = this.items.slice(-12)\n"
    "    return client.create({ messages: [{ role: 'system', content: sys }, ...this.kept] })\n"
    "  }\n"
    "}\n"
)


def test_a_window_kept_in_an_attribute_and_spread_after_the_system_prompt_is_reported() -> None:
    assert _codes(_ATTRIBUTE, "bot.ts") == [(4, "PL303")]


def test_a_window_kept_in_an_attribute_that_is_only_shown_is_no_finding() -> None:
    shown = _ATTRIBUTE.replace("...this.kept]", "...this.items]").replace(
        "    return client", "    render(this.kept)\n    return client"
    )
    assert _codes(shown, "bot.ts") == []


_BESIDE = (
    "export async function g(client, items, sys) {\n"
    "  const kept = items.slice(-12)\n"
    "  return client.messages.create({ model: 'm', system: sys, messages: kept })\n"
    "}\n"
)


def test_a_window_sent_as_the_messages_beside_a_system_prompt_is_reported() -> None:
    assert _codes(_BESIDE, "g.ts") == [(2, "PL303")]


def test_a_window_stored_as_messages_with_no_system_prompt_beside_is_no_finding() -> None:
    # A record written to a store, not a request: nothing precedes the list.
    stored = _BESIDE.replace(
        "client.messages.create({ model: 'm', system: sys, messages: kept })",
        "db.save({ id: sys, messages: kept })",
    )
    assert _codes(stored, "g.ts") == []


_CONCAT = (
    "export async function f(client, items, sys) {\n"
    "  const kept = items.slice(-12)\n"
    "  const msgs = [{ role: 'system', content: sys }].concat(kept)\n"
    "  return client.create({ messages: msgs })\n"
    "}\n"
)


def test_a_window_concatenated_onto_a_system_message_is_reported() -> None:
    assert _codes(_CONCAT, "f.ts") == [(2, "PL303")]


def test_a_window_concatenated_onto_a_list_of_user_turns_is_no_finding() -> None:
    bare = _CONCAT.replace("role: 'system'", "role: 'user'")
    assert _codes(bare, "f.ts") == []


def _project(root: Path, helper: str, caller: str) -> list[tuple[str, int, str]]:
    (root / "util.ts").write_text(helper)
    (root / "chat.ts").write_text(caller)
    found = lint_paths([str(root / "util.ts"), str(root / "chat.ts")], LintConfig(), jobs=1)
    return [(Path(f.path).name, f.line, f.code) for f in found.findings]


_HELPER = "export function lastOf(xs, n) {\n  return xs.slice(-n)\n}\n"
_CALLER = (
    "import { lastOf } from './util'\n"
    "export async function reply(client, items, sys) {\n"
    "  const kept = lastOf(items, 8)\n"
    "  return client.create({ messages: [{ role: 'system', content: sys }, ...kept] })\n"
    "}\n"
)


def test_a_window_cut_by_a_helper_of_another_module_is_reported_at_the_call(
    tmp_path: Path,
) -> None:
    assert _project(tmp_path, _HELPER, _CALLER) == [("chat.ts", 3, "PL303")]


def test_a_helper_of_another_module_that_keeps_the_oldest_items_is_no_window(
    tmp_path: Path,
) -> None:
    oldest = _HELPER.replace("xs.slice(-n)", "xs.slice(0, n)")
    assert _project(tmp_path, oldest, _CALLER) == []


def test_a_helper_window_handed_to_a_title_request_is_no_finding(tmp_path: Path) -> None:
    # The recent turns a title is asked from: a side request, not the conversation.
    titled = _CALLER.replace("const kept =", "const titleMessages =").replace(
        "...kept]", "...items]"
    )
    titled = titled.replace(
        "  return client", "  await client.create({ messages: titleMessages })\n  return client"
    )
    assert _project(tmp_path, _HELPER, titled) == []


# Twentieth pass: a helper of another module that cuts what it is given to a budget (the newest
# messages kept while a character count lasts), its result sent as the request's messages.
_BUDGET_HELPER = (
    "export function trimHistory(messages, maxChars = 8000) {\n"
    "  let total = 0\n"
    "  const out = []\n"
    "  for (let i = messages.length - 1; i >= 0; i--) {\n"
    "    const len = messages[i].content.length\n"
    "    if (total + len > maxChars) break\n"
    "    out.unshift(messages[i])\n"
    "    total += len\n"
    "  }\n"
    "  return out\n"
    "}\n"
)
_BUDGET_CALLER = (
    "import { trimHistory } from './util'\n"
    "export async function reply(client, body) {\n"
    "  const trimmed = trimHistory(body.messages)\n"
    "  return client.create({ model: 'm', messages: trimmed })\n"
    "}\n"
)
# The same cut as a CommonJS module's whole export, dropping the oldest while over a budget.
_REQUIRED_HELPER = (
    "module.exports = function fit(history, text, maxTokens, tok) {\n"
    "  let size = tok.encode(JSON.stringify(history)).length\n"
    "  while (size + tok.encode(text).length >= maxTokens) {\n"
    "    history.splice(0, 1)\n"
    "    size = tok.encode(JSON.stringify(history)).length\n"
    "  }\n"
    "  return history\n"
    "}\n"
)
_REQUIRED_CALLER = (
    "const fit = require('./util')\n"
    "async function reply(client, history, text, tok) {\n"
    "  const kept = fit(history, text, 3000, tok)\n"
    "  return client.create({ messages: [{ role: 'system', content: 'Hi' }, ...kept] })\n"
    "}\n"
    "module.exports = reply\n"
)


@pytest.mark.parametrize(
    ("helper", "caller", "expected"),
    [
        (_BUDGET_HELPER, _BUDGET_CALLER, [("chat.ts", 3, "PL303")]),
        # the oldest messages kept while the budget lasts: no window
        (
            _BUDGET_HELPER.replace(
                "let i = messages.length - 1; i >= 0; i--", "let i = 0; i < messages.length; i++"
            ),
            _BUDGET_CALLER,
            [],
        ),
        # the trimmed list only logged: nothing sent
        (
            _BUDGET_HELPER,
            _BUDGET_CALLER.replace("messages: trimmed", "messages: body.messages").replace(
                "  return", "  console.log(trimmed)\n  return"
            ),
            [],
        ),
        (_REQUIRED_HELPER, _REQUIRED_CALLER, [("chat.ts", 3, "PL303")]),
        # a queue drained to empty is no budget
        (
            _REQUIRED_HELPER.replace(
                "size + tok.encode(text).length >= maxTokens", "history.length"
            ),
            _REQUIRED_CALLER,
            [],
        ),
    ],
)
def test_a_budget_cut_by_a_helper_of_another_module_is_reported_at_the_call(
    tmp_path: Path, helper: str, caller: str, expected: list[tuple[str, int, str]]
) -> None:
    found = [f for f in _project(tmp_path, helper, caller) if f[0] == "chat.ts"]
    assert found == expected


_PUSHED_FIRST = (
    "export function assemble(systemPrompt, items, n) {\n"
    "  const prompt = []\n"
    "  prompt.push(systemPrompt)\n"
    "  prompt.push(...items.slice(-n))\n"
    "  return prompt\n"
    "}\n"
)


def test_a_window_pushed_after_a_system_message_pushed_first_is_reported() -> None:
    # The list is declared empty; its first push is the system message, then the window.
    assert _codes(_PUSHED_FIRST, "assemble.ts") == [(4, "PL303")]


def test_a_window_pushed_first_onto_an_empty_list_is_no_finding() -> None:
    # Nothing stable is ahead of the window: the list starts with it.
    first = _PUSHED_FIRST.replace("  prompt.push(systemPrompt)\n", "")
    assert _codes(first, "assemble.ts") == []


def test_a_window_pushed_after_a_user_message_pushed_first_is_no_finding() -> None:
    asked = _PUSHED_FIRST.replace("prompt.push(systemPrompt)", "prompt.push(question)")
    assert _codes(asked, "assemble.ts") == []
