import subprocess


def current_branch() -> str:
    return subprocess.check_output(["git", "rev-parse", "--abbrev-ref", "HEAD"], text=True)


def start(client, question):
    branch = current_branch()
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=512,
        cache_control={"type": "ephemeral"},
        system=[{"type": "text", "text": f"You work on branch {branch}."}],
        messages=[{"role": "user", "content": question}],
    )
