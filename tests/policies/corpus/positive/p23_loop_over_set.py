AGENTS = {"explorer", "reviewer", "tester"}


def describe_agents() -> str:
    lines = []
    for name in AGENTS:
        lines.append(f"- {name}")
    system = "Delegate to these agents:\n" + "\n".join(lines)
    return system
