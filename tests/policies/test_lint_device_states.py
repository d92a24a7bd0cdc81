"""A smart-home entity's current state read by its key (`entity.get("state")`) and written into
the system prompt rebuilt for each message: PL106 at the read; near misses (a graph's `state`,
a device's name, a state only logged) not."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

HOME_AGENT = """\
from openai import OpenAI

client = OpenAI()


class HomeAgent:
    def overview(self, entities):
        lines = []
        for entity in entities:
            name = entity.get("friendly_name", entity["entity_id"])
            state = entity.get("state", "unknown")
            lines.append(f"- {name}: {state}")
        return "\\n".join(lines)

    def reply(self, entities, history):
        system_prompt = f"You are a home assistant.\\nDevices:\\n{self.overview(entities)}"
        messages = [{"role": "system", "content": system_prompt}, *history]
        return client.chat.completions.create(model="gpt-4o", messages=messages)
"""

SUBSCRIPT = """\
from openai import OpenAI

client = OpenAI()


def reply(devices, history):
    listing = "\\n".join(f"{device['name']}: {device['state']}" for device in devices)
    messages = [{"role": "system", "content": "Devices now:\\n" + listing}, *history]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
"""


def test_entity_state_in_the_system_prompt_is_reported() -> None:
    assert lines_of(HOME_AGENT, "PL106", "agent.py") == [11]


def test_device_state_by_subscript_is_reported() -> None:
    assert lines_of(SUBSCRIPT, "PL106", "agent.py") == [7]


def test_a_graphs_state_is_no_device() -> None:
    text = SUBSCRIPT.replace("device['state']", "node['state']").replace(
        "for device in devices", "for node in devices"
    )
    assert lines_of(text, "PL106", "agent.py") == []


def test_a_devices_name_alone_is_not_reported() -> None:
    text = SUBSCRIPT.replace(": {device['state']}", "")
    assert lines_of(text, "PL106", "agent.py") == []


def test_a_state_only_logged_is_not_reported() -> None:
    text = HOME_AGENT.replace(
        'lines.append(f"- {name}: {state}")',
        'lines.append(f"- {name}")\n            print(state)',
    )
    assert lines_of(text, "PL106", "agent.py") == []


TS_HOME_AGENT = """\
import OpenAI from "openai";

const client = new OpenAI();

export async function reply(entities: Entity[], history: Msg[]) {
  let overview = "";
  for (const entity of entities) {
    overview += `- ${entity.attributes.friendly_name}: ${entity.state}\\n`;
  }
  const messages = [{ role: "system", content: "You control the home.\\n" + overview }, ...history];
  return client.chat.completions.create({ model: "gpt-4o", messages });
}
"""


def test_typescript_entity_state_in_the_system_prompt_is_reported() -> None:
    assert lines_of(TS_HOME_AGENT, "PL106", "src/agent.ts") == [8]


def test_typescript_state_of_no_device_is_not_reported() -> None:
    text = TS_HOME_AGENT.replace("entity", "task")
    assert lines_of(text, "PL106", "src/agent.ts") == []


def test_typescript_device_name_alone_is_not_reported() -> None:
    text = TS_HOME_AGENT.replace(": ${entity.state}", "")
    assert lines_of(text, "PL106", "src/agent.ts") == []
