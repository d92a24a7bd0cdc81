RULES = """Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. Follow the repository conventions. """


def build_system(project_notes: str) -> str:
    return f"{project_notes}\n\n{RULES}"
