import json


def system_with_config(config: dict) -> str:
    system = "Use this configuration:\n" + json.dumps(config, indent=2)
    return system
