from prefixlock import FrozenPrefix

ENABLED = set(["read_file", "grep", "edit_file"])


def tool_spec(name: str) -> dict:
    return {"name": name, "description": name, "input_schema": {"type": "object"}}


def prefix() -> FrozenPrefix:
    return FrozenPrefix(system="Be brief.", tools=[tool_spec(n) for n in ENABLED])
