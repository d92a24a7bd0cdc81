import datetime
import uuid
from pathlib import Path


class Assistant:
    SYSTEM = Path("system.md")

    def __init__(self, client) -> None:
        self.client = client
        self.system_prompt = self.SYSTEM.read_text()
        self.started = datetime.datetime.now()
        self.session_id = str(uuid.uuid4())

    def ask(self, question: str):
        return self.client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=512,
            cache_control={"type": "ephemeral"},
            system=self.system_prompt,
            messages=[{"role": "user", "content": question}],
            metadata={"user_id": self.session_id},
        )
