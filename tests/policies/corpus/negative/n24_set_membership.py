ALLOWED = {"read_file", "grep"}
SYSTEM = "You may only read files."


def allowed(name: str) -> bool:
    return name in ALLOWED


def system_prompt_for() -> str:
    return SYSTEM
