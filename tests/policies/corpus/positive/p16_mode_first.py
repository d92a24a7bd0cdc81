PLAN = "You are in PLAN mode. Do not edit files."
ACT = "You are in ACT mode. Edit files as needed."
HANDBOOK = "Follow the repository conventions. " * 12


def system_for(plan: bool) -> str:
    return (PLAN if plan else ACT) + HANDBOOK
