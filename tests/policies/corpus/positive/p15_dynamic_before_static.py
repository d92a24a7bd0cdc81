RULES = "Follow the repository conventions. " * 12


def build_system(project_notes: str) -> str:
    return f"{project_notes}\n\n{RULES}"
