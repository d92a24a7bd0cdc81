RULES = "Follow the repository conventions. " * 250  # past the 1,024-token minimum


def build_system(project_notes: str) -> str:
    return f"{project_notes}\n\n{RULES}"
