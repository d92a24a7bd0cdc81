import subprocess

BASE = "You are a repository assistant."


def system_text() -> str:
    status = subprocess.run(["git", "status", "--short"], capture_output=True, text=True).stdout
    return BASE + "\n\nWorking tree:\n" + status
