"""Retrieved documents go after the history, beside the current question: the prefix up to the
history's end is unchanged, so it is read from the cache."""

SYSTEM = [{"role": "system", "content": "You answer questions about the handbook."}]


class Chat:
    def __init__(self, client, index):
        self.client = client
        self.index = index
        self.history = []
        self.cur_messages = []

    def retrieved(self):
        question = self.cur_messages[-1]["content"]
        return [{"role": "user", "content": "\n\n".join(self.index.search(question, k=5))}]

    def send(self):
        messages = SYSTEM + self.history + self.retrieved() + self.cur_messages
        return self.client.chat.completions.create(model="gpt-5.6-terra", messages=messages)
