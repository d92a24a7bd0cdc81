import os


def system_for(root: str) -> str:
    files = sorted(os.listdir(root))
    instructions = "Project files:\n" + "\n".join(files)
    return instructions
