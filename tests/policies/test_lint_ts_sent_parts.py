"""The seventeenth structural pass, TypeScript: the parts of the list each request sends, read
in order (`jscheck/sentparts.py`). What was recalled for this turn (a memory, a summary, a
search) in a message placed before the replayed history; the replayed history cut to its newest
messages wherever the list is built; the kept history replaced by its newest messages after a
reply. Each with its near misses: the same part after the history, a fixed message ahead of it,
a field set elsewhere, a cut of a list that is not the conversation, a local list cut after
its last request."""

from __future__ import annotations

from prefixlock.policies.jscheck.sentparts import check_sent_parts
from prefixlock.policies.jscheck.syntax import parse
from tests.helpers.lintfind import lines_of

_PUSHED = (
    "export async function buildTurn(store: Store, sessionId: string, text: string) {\n"
    "  const out: Msg[] = []\n"
    "  out.push({ role: 'system', content: BASE })\n"
    "  const notes = await store.loadPinnedFacts(sessionId)\n"
    "  const notesText = `Facts:\\n${notes.join('\\n')}`\n"
    "  out.push({ role: 'system', content: notesText })\n"
    "  const rows = await store.loadRows(sessionId)\n"
    "  for (const row of rows) {\n"
    "    out.push({ role: row.role, content: row.body })\n"
    "  }\n"
    "  out.push({ role: 'user', content: text })\n"
    "  return { messages: out, count: out.length }\n"
    "}\n"
)


def test_recalled_facts_pushed_ahead_of_replayed_rows_are_reported() -> None:
    # The rows pushed with their own role are the history; the facts message comes first
    # (reported where the facts are read into it).
    assert lines_of(_PUSHED, "PL304", "turn.ts") == [5]


def test_the_same_facts_after_the_history_are_not() -> None:
    moved = _PUSHED.replace("  out.push({ role: 'system', content: notesText })\n", "").replace(
        "  out.push({ role: 'user', content: text })\n",
        "  out.push({ role: 'user', content: `${notesText}\\n\\n${text}` })\n",
    )
    assert lines_of(moved, "PL304", "turn.ts") == []


def test_a_fixed_message_ahead_of_the_rows_is_not() -> None:
    fixed = _PUSHED.replace("content: notesText", "content: RULES")
    assert lines_of(fixed, "PL304", "turn.ts") == []


def test_a_replayed_row_whose_branch_writes_its_role_out_is_still_the_history() -> None:
    # A row with an image is replayed in a branch that spells its role; the loop as a whole
    # is the conversation (a chat client's converter), so nothing is ahead of it.
    branched = (
        "export async function toApi(rows: Row[], instruction: string) {\n"
        "  const out: Msg[] = [{ role: 'system', content: instruction }]\n"
        "  for (const m of rows) {\n"
        "    if (m.image && m.role === 'user') {\n"
        "      const data = await readImage(m.image)\n"
        "      out.push({ role: 'user', content: [m.content, data] })\n"
        "    } else {\n"
        "      out.push({ role: m.role, content: m.content })\n"
        "    }\n"
        "  }\n"
        "  return out\n"
        "}\n"
    )
    assert lines_of(branched, "PL304", "convert.ts") == []
    # The same branch outside the replaying loop, ahead of it, is still read as this turn's.
    ahead = branched.replace(
        "  for (const m of rows) {\n",
        "  const first = rows[0]\n"
        "  out.push({ role: 'user', content: await recall(first.content) })\n"
        "  for (const m of rows) {\n",
    )
    assert lines_of(ahead, "PL304", "convert.ts") != []


_FOLDED = (
    "export function assemble(system: Msg, folds: Fold[], recentMessages: Msg[]): Msg[] {\n"
    "  const prompt: Msg[] = []\n"
    "  prompt.push(system)\n"
    "  for (const fold of folds) {\n"
    "    prompt.push({ role: 'assistant', content: fold.summary })\n"
    "  }\n"
    "  prompt.push(...recentMessages)\n"
    "  return prompt\n"
    "}\n"
)


def test_summaries_of_folded_turns_ahead_of_the_recent_ones_are_reported() -> None:
    assert lines_of(_FOLDED, "PL304", "assemble.ts") == [5]


def test_a_field_of_the_instance_is_not_read_as_recalled_here() -> None:
    # `this.summary` is set elsewhere, whenever it is set: not this turn's by this reading.
    own = _FOLDED.replace("fold.summary", "this.summary")
    assert lines_of(own, "PL304", "assemble.ts") == []


_WORKING = (
    "export async function roundtable(base: Msg[], speakers: Speaker[]) {\n"
    "  const working = [...base]\n"
    "  for (const speaker of speakers) {\n"
    "    const head = { role: 'system', content: PERSONA }\n"
    "    const payload = [head, ...working.slice(-6).map((m) => ({ role: m.role, content: m }))]\n"
    "    const text = await speak(speaker.name, payload as any)\n"
    "    working.push({ role: 'assistant', text })\n"
    "  }\n"
    "  return working\n"
    "}\n"
)


def test_a_conversation_grown_by_its_loop_and_sent_cut_is_reported() -> None:
    # `working` is named for nothing: the loop that sends it and grows it makes it the history.
    assert lines_of(_WORKING, "PL303", "round.ts") == [5]


def test_a_list_the_loop_does_not_grow_is_not_read_as_the_history() -> None:
    # (The shape rule for a list named as sent cuts still reports it; this reading does not.)
    still = _WORKING.replace("    working.push({ role: 'assistant', text })\n", "")
    assert check_sent_parts(parse("round.ts", still)) == []


_KEPT = (
    "const chats = {}\n"
    "bot.on('message', async (msg) => {\n"
    "  const id = msg.chat.id\n"
    "  if (!chats[id]) chats[id] = [{ role: 'system', content: 'Be brief.' }]\n"
    "  chats[id].push({ role: 'user', content: msg.text })\n"
    "  const res = await client.chat.completions.create({ model: M, messages: chats[id] })\n"
    "  chats[id].push(res.choices[0].message)\n"
    "  if (chats[id].length > 30) {\n"
    "    chats[id] = chats[id].slice(-30)\n"
    "  }\n"
    "})\n"
)


def test_the_kept_history_replaced_by_its_newest_messages_is_reported() -> None:
    assert lines_of(_KEPT, "PL303", "bot.js") == [9]


def test_a_local_list_cut_after_its_last_request_is_not() -> None:
    local = _KEPT.replace("const chats = {}\n", "").replace(
        "  const id = msg.chat.id\n", "  const id = msg.chat.id\n  const chats = {}\n"
    )
    assert lines_of(local, "PL303", "bot.js") == []
