import subprocess


def next_turn(messages: list[dict], question: str) -> None:
    status = subprocess.check_output(["git", "status", "--short"], text=True)
    messages.append({"role": "user", "content": f"git status:\n{status}\n\n{question}"})
