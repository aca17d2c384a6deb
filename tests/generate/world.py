"""A chat server that writes queries from the passage in the prompt, and judges.

``Writer(behaviour)``: ``behaviour`` maps a passage's text (as the document's text) to what
the server does for it: "good" (a question in the passage's language, from its first word),
"copy" (the passage's first sentence with a question mark), "english" (an English question
for any passage), "japanese", "dup:<key>" (near-duplicate questions for the passages with that key),
"refuse" (OpenAI's refusal field), "sorry" (a refusal in words), "two" (two questions on two
lines), "unanswerable" (a good question the judge grades 1 against its source), "nograde"
(a good question whose source pair the judge answers without a grade), "ansi" (a good question
in ANSI colour codes), "nul" (a good question with a NUL in it).

``eol``: the line ending of every reply (``"\\r\\n"`` as LiteLLM relays some models).

As a judge (a prompt with "##final score"), it grades the source pair 3 (1 for
"unanswerable"), and any other pair 2 when the document's text has the query's marker word
(``related``: the words that make another document relevant), else 0.
"""

from __future__ import annotations

import re
import threading

PASSAGE = re.compile(r"(?:Passage|パッセージ):\n(.*?)\n\n(?:Reply|クエリだけ)", re.DOTALL)
JUDGE_QUERY = re.compile(r"(?:Query|クエリ)[:：][ \t]*(?:<query>)?(.*?)(?:</query>)?\n")


class Writer:
    def __init__(self, behaviour: dict[str, str], related: dict[str, set[str]] | None = None,
                 *, eol: str = "\n") -> None:
        self.behaviour = behaviour
        self.eol = eol
        self.related = related or {}
        self.written: dict[str, str] = {}   # query -> passage text it was written from
        self.lock = threading.Lock()
        self.judged: list[tuple[str, str]] = []
        self.dups: dict[str, int] = {}

    def _doc(self, shown: str) -> str:
        # the passage shown is "title\ntext" or the text alone
        for text in self.behaviour:
            if text in shown:
                return text
        return shown.split("\n", 1)[-1]

    def __call__(self, body: dict):
        said = self.answer(body)
        if isinstance(said, str) and self.eol != "\n":
            return said.replace("\n", self.eol) + self.eol
        return said

    def answer(self, body: dict):
        prompt = body["messages"][-1]["content"]
        if "##final score" in prompt:
            return self.judge(prompt)
        m = PASSAGE.search(prompt)
        shown = m.group(1) if m else ""
        doc = self._doc(shown)
        kind = self.behaviour.get(doc, "good")
        word = doc.split()[0] if doc.split() else doc[:4]
        ja = bool(re.search("[\u3041-\u30ff]", doc))
        if kind == "copy":
            q = doc.split(".")[0].split("。")[0] + "?"
        elif kind == "english":
            q = f"What does the {len(doc)} character text about {abs(hash(doc)) % 997} say?"
        elif kind == "japanese":
            q = f"{word}とは何ですか"
        elif kind.startswith("dup:"):  # near-duplicates: "every year", then "each year"
            with self.lock:
                seen = self.dups.get(kind, 0)
                self.dups[kind] = seen + 1
            q = (f"Which season brings the {kind[4:]} festival to the old town "
                 f"{'every' if seen == 0 else 'each'} year?")
        elif kind == "refuse":
            return {"refusal": "I can't help with that."}
        elif kind == "sorry":
            return "I'm sorry, but I can't help with that request."
        elif kind == "two":
            return f"What is {word}?\nWhy does {word} matter?"
        elif kind == "ansi":
            return f"\x1b[1mWhere would I read about {word}?\x1b[0m"
        elif kind == "nul":
            return f"Where would I read\x00 about {word}?"
        elif ja:
            q = f"「{doc[:6]}」について教えてください"
        else:
            q = f"Where would I read about {word} and its uses?"
        with self.lock:
            self.written[q] = doc
        return q

    def judge(self, prompt: str) -> str:
        m = JUDGE_QUERY.search(prompt)
        query = m.group(1).strip() if m else ""
        with self.lock:
            source = self.written.get(query)
            self.judged.append((query, prompt))
        if source is not None and source in prompt:
            if self.behaviour.get(source) == "nograde":
                return "This passage is interesting."
            grade = 1 if self.behaviour.get(source) == "unanswerable" else 3
        else:
            words = self.related.get(query, set())
            grade = 2 if any(w in prompt.split("<passage>\n")[-1] for w in words) else 0
        return f"The passage is assessed.\n##final score: {grade}"
