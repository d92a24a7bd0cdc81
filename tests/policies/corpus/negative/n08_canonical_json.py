import json


def system_with_config(config: dict) -> str:
    system = "Use this configuration:\n" + json.dumps(config, sort_keys=True, indent=2)
    return system
