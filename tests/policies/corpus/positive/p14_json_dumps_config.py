import json


def system_with_config(names: list[str]) -> str:
    # The keys come in a set's iteration order, which differs between processes.
    config = json.dumps({name: True for name in set(names)}, indent=2)
    system = "Use this configuration:\n" + config
    return system
