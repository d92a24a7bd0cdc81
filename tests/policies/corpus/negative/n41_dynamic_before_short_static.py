"""Per-project notes before a short static part: the static text could never be a cache entry
of its own (it is under every model's minimum), so its place costs nothing."""

RULES = "Follow the repository conventions and keep changes small. " * 10


def build_system(project_notes: str) -> str:
    return f"{project_notes}\n\n{RULES}"
