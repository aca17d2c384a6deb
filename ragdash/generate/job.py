"""One generation job: corpus → sample → prompts → replies (cached) → checks → judged pool.

    job = GenerateJob(corpus, endpoint=client.endpoint.base, model="gpt-4o-mini", n=200,
                      seed=1)
    job.estimate()                          # tokens and cost before anything is sent
    result = job.run(client)                # every reply and grade cached as it arrives
    result.report()                         # "200 written, 163 kept: 14 copied the passage…"
    result.dataset, result.labels           # the evaluation set and where each label is from

What is sent, in order:

1. **Writing**: one chat request per sampled document (:mod:`.sample`), its prompt in the
   passage's language (:mod:`.prompt`), minus the prompts whose reply is cached
   (:mod:`.cache`). Replies are checked (:mod:`.filters`): one query, the right language,
   not copied from the passage, not a near-duplicate.
2. **Answerability**: the LLM judge (:mod:`ragdash.judge`, UMBRELA's prompt, its own cache)
   grades every query that passed against the passage it was written from; below 2 it is
   dropped (``not_answerable``), no readable grade drops it too (``unjudged``).
3. **Beyond the source**: the kept queries are run with BM25 (and a dense retriever when one
   is given) over the whole corpus; the pooled top ``depth``, minus the source document, go to
   the judge. The dataset's qrels are the source document (grade 3, source
   ``generated:<model>@<prompt version>``) and the judged pool (grades 0–3, source
   ``llm:<model>@<judge prompt version>``).

**Nothing kept is a failure.** A job whose every request failed, whose every reply was
dropped, or whose judge gave no grade at all raises one sentence (the failure's own when every
request failed the same way; else the reasons counted) instead of returning an empty set, so
nothing empty is written or stored as if it were fine. What was answered is cached: a rerun
against a fixed server pays only for the rest (failures are not cached: :mod:`.cache`).

Tokens before the run: each prompt counted with the cost tokenizer (+4 per message), replies
assumed :data:`ASSUMED_QUERY_TOKENS`; the judge's requests: one per sampled document, and at
most ``depth`` × retrievers per query for the pool (an upper bound: runs overlap and the
source is not sent), each the judge's prompt + a query + a passage (cut to its budget).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..cost.chat import chat_cost, find_chat_price, provider_of
from ..cost.tokens import count_tokens
from ..dataset import Dataset, Document, Query
from ..errors import CHAT_ERRORS, RetrievalError
from ..i18n import Joined, error, text
from ..judge.cache import JudgeCache
from ..judge.job import ASSUMED_OUTPUT_TOKENS, JudgeJob, label_source
from ..judge.prompt import DEFAULT_DOC_TOKENS, template_tokens
from ..ranking import Ranking
from .cache import GenerateCache, Reply, text_hashes
from .corpus import Corpus
from .filters import (
    COPY_SHARE,
    REASON_KEYS,
    REASONS,
    clean_reply,
    copied_share,
    language_ok,
    near_duplicates,
    visible,
)
from .prompt import PROMPT_VERSION, build_prompt, passage_of, pick_examples
from .sample import Sample, sample_documents
from .settings import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_TOKENS,
    DEFAULT_N,
    DEFAULT_PASSAGE_TOKENS,
    LANGUAGES,
    STYLES,
)

#: reply tokens assumed per written query in the estimate (a question is 10–30 tokens)
ASSUMED_QUERY_TOKENS = 30
#: the grade a source passage gets, and the least the judge must give it to keep the query
SOURCE_GRADE = 3
ANSWERABLE_GRADE = 2
#: the end of a generated dataset's name (the app lists the stored sets by it)
NAME_SUFFIX = " (generated)"
#: requests sent to the client at once (bounds the prompts in memory)
CHUNK = 2_000

__all__ = ["ANSWERABLE_GRADE", "ASSUMED_QUERY_TOKENS", "DEFAULT_DEPTH", "DEFAULT_MAX_TOKENS",
           "NAME_SUFFIX", "SOURCE_GRADE", "GenerateJob", "Generated", "generated_source"]


def generated_source(model: str, version: str = PROMPT_VERSION) -> str:
    """The source of a source-passage label: ``generated:<model>@<prompt version>``."""
    return f"generated:{model}@{version}"


@dataclass
class Generated:
    """What a job gave: the dataset, each label with its source, the per-query records, the
    counts of every check, usage and cost."""

    dataset: Dataset
    labels: list[tuple[str, str, float, str]]       #: (query id, doc id, grade, source)
    records: list[dict]                              #: queries.jsonl rows
    written: int
    reasons: Counter
    failures: Counter
    usage: dict
    cost: dict
    seconds: float
    settings: dict
    pool: dict = field(default_factory=dict)
    dropped_examples: dict = field(default_factory=dict)

    @property
    def kept(self) -> int:
        return len(self.dataset.queries)

    def summary(self) -> dict:
        """JSON-ready report."""
        return {"written": self.written, "kept": self.kept,
                "dropped": {r: int(self.reasons.get(r, 0)) for r in REASONS
                            if self.reasons.get(r)},
                "failures": dict(self.failures), "pool": self.pool,
                "usage": self.usage, "cost": self.cost, "seconds": round(self.seconds, 3),
                "settings": self.settings, "examples": self.dropped_examples}


class GenerateJob:
    """The plan of one generation job (module docstring); nothing is sent before :meth:`run`."""

    def __init__(self, corpus: Corpus, *, endpoint: str, model: str, n: int = DEFAULT_N,
                 seed: int = 1, per_source: int | None = None, language: str = "auto",
                 style: str = "question", examples: Sequence[str] = (),
                 passage_tokens: int = DEFAULT_PASSAGE_TOKENS, depth: int = DEFAULT_DEPTH,
                 max_tokens: int = DEFAULT_MAX_TOKENS, judge_endpoint: str | None = None,
                 judge_model: str | None = None, cache: GenerateCache | None = None,
                 judge_cache: JudgeCache | None = None, base_url: str | None = None,
                 judge_base_url: str | None = None, retrievers: int = 1,
                 copy_share: float = COPY_SHARE) -> None:
        _check_settings(n, seed, per_source, language, style, depth)
        self.corpus = corpus
        self.endpoint, self.model = endpoint, model
        self.judge_endpoint = judge_endpoint or endpoint
        self.judge_model = judge_model or model
        self.n, self.seed, self.per_source = int(n), int(seed), per_source
        self.language, self.style = language, style
        self.depth, self.max_tokens = int(depth), int(max_tokens)
        self.retrievers = int(retrievers)
        if not 0 < copy_share <= 1:
            raise error(RetrievalError, "generate.bad_share", value=copy_share)
        self.copy_share = float(copy_share)
        self.version = PROMPT_VERSION
        self.cache = cache if cache is not None else GenerateCache()
        self.judge_cache = judge_cache if judge_cache is not None else JudgeCache(
            self.cache.directory)
        self.price = find_chat_price(model, provider_of(base_url or endpoint))
        self.judge_price = find_chat_price(self.judge_model,
                                           provider_of(judge_base_url or self.judge_endpoint))
        self.sample: Sample = sample_documents(corpus.sources, corpus.lengths(), self.n,
                                               seed=self.seed, per_source=per_source)
        if not len(self.sample.indices):
            raise error(RetrievalError, "generate.nothing_to_sample",
                        short=self.sample.too_short)
        rng = np.random.default_rng([self.seed, 7])
        docs = [corpus.documents[i] for i in self.sample.indices.tolist()]
        self.passages = [passage_of(d, language=language, budget=passage_tokens, rng=rng)
                         for d in docs]
        if style == "mixed":
            self.styles = [("question", "keyword")[b] for b in rng.integers(0, 2, len(docs))]
        else:
            self.styles = [style] * len(docs)
        self.examples = list(examples)
        self.prompts = [build_prompt(p, s, pick_examples(self.examples, p.language, rng))
                        for p, s in zip(self.passages, self.styles)]
        self.keys = text_hashes(self.prompts)
        cached = self.cache.get_many(endpoint, model, self.version, self.keys)
        self.cached = {i: cached[k] for i, k in enumerate(self.keys) if k in cached}
        self.due = [i for i in range(len(self.prompts)) if i not in self.cached]
        counted = count_tokens(self.prompts, per_text=True)
        self.token_method = counted.method
        self.prompt_tokens = np.asarray(counted.per_text or (), np.int64) + 4
        shown = count_tokens([p.text for p in self.passages], per_text=True)
        self.passage_tokens_shown = np.minimum(np.asarray(shown.per_text or (), np.int64),
                                               DEFAULT_DOC_TOKENS)

    @property
    def doc_ids(self) -> list[str]:
        return [self.corpus.documents[i].id for i in self.sample.indices.tolist()]

    # -- before ----------------------------------------------------------------------------
    def _priced(self, requests: int, input_tokens: int, output_tokens: int, price) -> dict:
        cost = chat_cost(input_tokens, output_tokens, price)
        return {"requests": int(requests), "input_tokens": int(input_tokens),
                "output_tokens": int(output_tokens), "usd": cost["usd"], "jpy": cost["jpy"]}

    def estimate(self) -> dict:
        """What the job will send and cost (JSON-safe); the pool is an upper bound."""
        due = np.asarray(self.due, np.int64)
        writing = self._priced(len(due), int(self.prompt_tokens[due].sum()) if len(due) else 0,
                               len(due) * ASSUMED_QUERY_TOKENS, self.price)
        n = len(self.prompts)
        ja = np.array([p.language == "ja" for p in self.passages])
        fixed = np.where(ja, template_tokens("ja"), template_tokens("en"))
        per_pair = fixed + ASSUMED_QUERY_TOKENS + self.passage_tokens_shown
        answer = self._priced(n, int(per_pair.sum()), n * ASSUMED_OUTPUT_TOKENS,
                              self.judge_price)
        pairs = n * self.depth * self.retrievers
        mean_pair = float(per_pair.mean()) if n else 0.0
        pool = self._priced(pairs, round(pairs * mean_pair), pairs * ASSUMED_OUTPUT_TOKENS,
                            self.judge_price)
        total = {k: writing[k] + answer[k] + pool[k]
                 for k in ("requests", "input_tokens", "output_tokens")}
        usd = [c["usd"] for c in (writing, answer, pool)]
        jpy = [c["jpy"] for c in (writing, answer, pool)]
        total["usd"] = None if None in usd else sum(usd)
        total["jpy"] = None if None in jpy else sum(jpy)
        return {"documents": len(self.corpus), "sampled": n, "cached": len(self.cached),
                "too_short": self.sample.too_short,
                "chunked": int(sum(p.chunks > 1 for p in self.passages)),
                "sources": len(self.sample.available), "per_source": self.sample.per_source,
                "languages": dict(Counter(p.language for p in self.passages)),
                "writing": writing, "answerability": answer, "pool_at_most": pool,
                "total_at_most": total, "assumed_query_tokens": ASSUMED_QUERY_TOKENS,
                "token_method": self.token_method, "model": self.model,
                "judge_model": self.judge_model, "priced": self.price is not None,
                "judge_priced": self.judge_price is not None, "prompt_version": self.version,
                "seed": self.seed}

    # -- the run ---------------------------------------------------------------------------
    def run(self, client, *, judge_client=None, dense=None,
            progress: Callable[[dict], None] | None = None, cancel=None) -> Generated:
        """Write, check, judge (module docstring). ``client`` writes; ``judge_client``
        judges (default: ``client``); ``dense`` is an optional second retriever for the
        pool (any :class:`ragdash.pipeline.Retriever`)."""
        started = time.monotonic()
        judge_client = judge_client or client
        replies, spent, said = self._write(client, progress, cancel)
        queries, reasons, failures, examples = self._check(replies)
        keep = list(queries)
        judging = None if progress is None else (
            lambda p: progress({**p, "stage": "judge"}))
        answer_grades, answer_usage = self._answerable(keep, queries, judge_client, cancel,
                                                       judging)
        for i in list(keep):
            grade = answer_grades.get(i)
            if grade is None or grade < ANSWERABLE_GRADE:
                reason = "unjudged" if grade is None else "not_answerable"
                reasons[reason] += 1
                examples.setdefault(reason, queries[i])
                keep.remove(i)
        if not keep:
            self._none_kept(reasons, failures, said)
        result = self._pool(keep, queries, judge_client, dense, cancel, judging)
        dataset, labels, records, pool_info, pool_usage = result
        usage = {"writing": spent, "judge": _add(answer_usage, pool_usage)}
        actual_write = chat_cost(spent["prompt_tokens"], spent["completion_tokens"],
                                 self.price)
        judge = usage["judge"]
        actual_judge = chat_cost(judge["prompt_tokens"], judge["completion_tokens"],
                                 self.judge_price)
        cost = {"estimate": self.estimate()["total_at_most"],
                "writing": _money(actual_write), "judge": _money(actual_judge),
                "total": _sum_money(actual_write, actual_judge)}
        return Generated(dataset, labels, records, len(self.prompts), reasons, failures,
                         usage, cost, time.monotonic() - started, self.settings(),
                         pool_info, examples)

    def settings(self) -> dict:
        return {"model": self.model, "judge_model": self.judge_model, "seed": self.seed,
                "n": self.n, "per_source": self.per_source, "language": self.language,
                "style": self.style, "examples": len(self.examples), "depth": self.depth,
                "copy_share": self.copy_share,
                "prompt_version": self.version, "endpoint": self.endpoint,
                "corpus": self.corpus.name}

    def _none_kept(self, reasons: Counter, failures: Counter, said: dict) -> None:
        """Raise the sentence of a job that kept no query (module docstring)."""
        written = len(self.prompts)
        if reasons.get("failed") == written and len(failures) == 1 \
                and next(iter(failures)) in said:
            kind = next(iter(failures))
            failed = CHAT_ERRORS.get(kind, CHAT_ERRORS["bad_reply"])
            raise error(failed, "generate.all_failed", n=written, said=said[kind])
        why = Joined(text(REASON_KEYS[r], n=int(reasons[r])) for r in REASONS
                     if reasons.get(r))
        raise error(RetrievalError, "generate.none_kept", n=written, reasons=why)

    def _write(self, client, progress, cancel) -> tuple[dict[int, Reply], dict, dict]:
        """The replies (cached and new), the usage, and the first failure's sentence of each
        kind of failed request."""
        from ..services.chat import ChatRequest

        replies: dict[int, Reply] = dict(self.cached)
        said: dict[str, object] = {}
        spent = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0,
                 "cached": len(self.cached)}
        total = len(self.due)
        if total:
            self.cache.check_writable()  # before the first paid request
        for lo in range(0, total, CHUNK):
            batch = self.due[lo:lo + CHUNK]
            requests = [ChatRequest([{"role": "user", "content": self.prompts[i]}],
                                    temperature=0.0, max_tokens=self.max_tokens)
                        for i in batch]

            def on_result(j: int, result, batch=batch) -> None:
                i = batch[j]
                spent["requests"] += 1
                spent["prompt_tokens"] += result.prompt_tokens or 0
                spent["completion_tokens"] += result.completion_tokens or 0
                reply = Reply(result.text if result.ok else None,
                              None if result.ok else result.kind,
                              result.prompt_tokens, result.completion_tokens)
                if result.ok:  # a failure is asked again by the next run
                    self.cache.put(self.endpoint, self.model, self.version, self.keys[i],
                                   reply)
                else:
                    said.setdefault(result.kind, result.message)
                replies[i] = reply
                if progress is not None:
                    progress({"stage": "write", "done": spent["requests"], "total": total})

            client.complete_many(requests, on_result=on_result, cancel=cancel)
        return replies, spent, said

    def _check(self, replies: dict[int, Reply]):
        reasons: Counter = Counter()
        failures: Counter = Counter()
        examples: dict[str, str] = {}
        queries: dict[int, str] = {}
        for i in range(len(self.prompts)):
            reply = replies.get(i)
            if reply is None or reply.text is None:
                reasons["failed"] += 1
                failures[(reply.failure if reply else None) or "none"] += 1
                continue
            query, why = clean_reply(reply.text)
            lang = self.passages[i].language
            if why is None and not language_ok(query, lang):
                why = "wrong_language"
            if why is None and copied_share(query, self.passages[i].text) >= self.copy_share:
                why = "copied"
            if why is not None:
                reasons[why] += 1
                examples.setdefault(why, visible((query or reply.text)[:200]))
                continue
            queries[i] = query
        order = list(queries)
        dup = near_duplicates([queries[i] for i in order])
        for i, is_dup in zip(order, dup.tolist()):
            if is_dup:
                reasons["duplicate"] += 1
                examples.setdefault("duplicate", queries[i])
                del queries[i]
        return queries, reasons, failures, examples

    def _query_id(self, i: int) -> str:
        return f"gen{self.seed}-{i + 1:0{len(str(len(self.prompts)))}d}"

    def _answerable(self, keep: list[int], queries: dict[int, str], judge_client, cancel,
                    progress=None):
        """The judge's grade of each query against the passage it was written from."""
        if not keep:
            return {}, _zero_usage()
        ids = [self._query_id(i) for i in keep]
        docs = {self.corpus.documents[self.sample.indices[i]].id: self.passages[i].text
                for i in keep}
        ds = Dataset([Document(d, t) for d, t in docs.items()],
                     [Query(q, queries[i]) for q, i in zip(ids, keep)], {}, name="source pairs")
        ranking = Ranking.from_dict({q: {self.corpus.documents[self.sample.indices[i]].id: 1.0}
                                     for q, i in zip(ids, keep)}, name="source")
        job = JudgeJob(ds, [ranking], depth=1, endpoint=self.judge_endpoint,
                       model=self.judge_model, calibrate=0, cache=self.judge_cache,
                       seed=self.seed)
        result = job.run(judge_client, cancel=cancel, progress=progress)
        result.require_grades()  # a judge that gave no grade at all: its sentence
        by_query = dict(zip(ids, keep))
        grades: dict[int, int | None] = {i: None for i in keep}
        for q, _d, g in zip(*(a.tolist() for a in result.gap_labels())):
            grades[by_query[q]] = int(g)
        return grades, result.usage

    def _pool(self, keep: list[int], queries: dict[int, str], judge_client, dense, cancel,
              progress=None):
        from ..pipeline import run_evaluation
        from ..retrieval import make_retriever

        source = generated_source(self.model, self.version)
        ids = [self._query_id(i) for i in keep]
        src_docs = [self.corpus.documents[self.sample.indices[i]].id for i in keep]
        qrels = {q: {d: float(SOURCE_GRADE)} for q, d in zip(ids, src_docs)}
        dataset = Dataset(list(self.corpus.documents),
                          [Query(q, queries[i]) for q, i in zip(ids, keep)], qrels,
                          name=f"{self.corpus.name}{NAME_SUFFIX}", source=self.corpus.name,
                          synthetic={"queries": len(keep), "generators": {self.model: len(keep)},
                                     "seeds": [self.seed]})
        labels = [(q, d, float(SOURCE_GRADE), source) for q, d in zip(ids, src_docs)]
        records = [{"_id": q, "text": queries[i], "source_doc": d, "generator": self.model,
                    "prompt": self.version, "seed": self.seed, "style": self.styles[i],
                    "language": self.passages[i].language}
                   for q, i, d in zip(ids, keep, src_docs)]
        info = {"retrievers": [], "pairs": 0, "judged": 0, "unjudged": 0,
                "with_other_relevant": 0, "with_other_answer": 0}
        if not keep:
            return dataset, labels, records, info, _zero_usage()
        rankings = [run_evaluation(dataset, make_retriever("bm25"), kmax=self.depth,
                                   cancel=cancel).ranking]
        info["retrievers"].append("bm25")
        if dense is not None:
            rankings.append(run_evaluation(dataset, dense, kmax=self.depth,
                                           cancel=cancel).ranking)
            info["retrievers"].append(getattr(dense, "name", "dense"))
        job = JudgeJob(dataset, rankings, depth=self.depth, endpoint=self.judge_endpoint,
                       model=self.judge_model, names=info["retrievers"], calibrate=0,
                       cache=self.judge_cache, seed=self.seed)
        result = job.run(judge_client, cancel=cancel, progress=progress)
        result.require_grades()  # every pooled pair failed: no set judged beyond the source
        llm = label_source(self.judge_model, job.version)
        judged_q, judged_d, grades = (a.tolist() for a in result.gap_labels())
        other_rel: set[str] = set()
        other_ans: set[str] = set()
        for q, d, g in zip(judged_q, judged_d, grades):
            qrels[q][d] = float(g)
            labels.append((q, d, float(g), llm))
            if g >= 1:
                other_rel.add(q)
            if g >= ANSWERABLE_GRADE:
                other_ans.add(q)
        info.update(pairs=int((job.kinds == 0).sum()), judged=len(grades),
                    unjudged=int(result.unreadable), with_other_relevant=len(other_rel),
                    with_other_answer=len(other_ans), judge_source=llm)
        return dataset, labels, records, info, result.usage


def _zero_usage() -> dict:
    return {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}


def _add(a: dict, b: dict) -> dict:
    return {k: int(a.get(k, 0) or 0) + int(b.get(k, 0) or 0)
            for k in ("requests", "prompt_tokens", "completion_tokens")}


def _money(cost: dict) -> dict:
    return {"usd": cost["usd"], "jpy": cost["jpy"], "input_tokens": cost["input_tokens"],
            "output_tokens": cost["output_tokens"]}


def _sum_money(a: dict, b: dict) -> dict:
    out = {}
    for k in ("usd", "jpy"):
        out[k] = None if a[k] is None or b[k] is None else a[k] + b[k]
    return out


def _check_settings(n, seed, per_source, language, style, depth) -> None:
    for what, value, lo in (("n", n, 1), ("seed", seed, 0), ("depth", depth, 1),
                            ("per-source", per_source, 1)):
        if value is None and what == "per-source":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
            raise error(RetrievalError, "generate.bad_number", what=what, value=value, lo=lo)
    if language not in LANGUAGES:
        raise error(RetrievalError, "generate.bad_choice", what="language", value=language,
                    choices=", ".join(LANGUAGES))
    if style not in STYLES:
        raise error(RetrievalError, "generate.bad_choice", what="style", value=style,
                    choices=", ".join(STYLES))
