"""Documents retrieved for the current question go before the history: every request differs
there, so the history after them is written again each time."""

SYSTEM = [{"role": "system", "content": "You answer questions about the handbook."}]


class Chat:
    def __init__(self, client, index):
        self.client = client
        self.index = index
        self.history = []
        self.cur_messages = []

    def retrieved(self):
        question = self.cur_messages[-1]["content"]
        docs = self.index.search(question, k=5)
        return [
            {"role": "user", "content": "\n\n".join(docs)},
            {"role": "assistant", "content": "Noted."},
        ]

    def send(self):
        context = self.retrieved()
        messages = SYSTEM + context + self.history + self.cur_messages
        return self.client.chat.completions.create(model="gpt-5.6-terra", messages=messages)
