from prefixlock import FrozenPrefix

REGISTRY = {
    "grep": {"name": "grep", "description": "Search", "input_schema": {"type": "object"}},
    "read_file": {"name": "read_file", "description": "Read", "input_schema": {"type": "object"}},
}


def prefix() -> FrozenPrefix:
    return FrozenPrefix(system="Be brief.", tools=list(REGISTRY.values()))
