"""One judging job: pool → calibration sample → prompts → cache → estimate → requests → labels.

    job = JudgeJob(dataset, rankings, depth=10, endpoint=client.endpoint.base, model="gpt-4o",
                   calibrate=None)              # None: 100 where the pool has human labels
    job.estimate()                              # before anything is sent (per run and total)
    result = job.run(client, progress=print)    # answers cached as they arrive
    result.qrels()                              # {query: {doc: grade}} for the pool's gaps

What is sent: every pool pair the human qrels do not judge, and the calibration pairs (human
labeled, see :mod:`.calibration`), each as one chat request at temperature 0, minus those
whose grade is in the cache (:mod:`.cache`). A reply that states no grade 0–3 in the
model's own words (:mod:`.answers`: the query and the passage it was shown are passed as
quoted, so a line copied from them is not a verdict) is asked once more; if the second reply
states none either, the pair stays unjudged and its reason is counted. Every grade is cached
as it arrives, so a rerun sends nothing for it; an answer that could not be read as a grade
(a refusal, a cut reply, text without a grade, a server error, …) is never cached, so the
next run — against a fixed server, or with a reader that reads more — asks again.

A job that was due to give labels and gave none (every reply unreadable, every request
failed) is a failure, not an empty result: :meth:`JudgeResult.require_grades` raises one
sentence, that of the failure when all failed the same way.

Tokens before the run: the prompt's fixed text (per language) + the query + the passage (cut
to the budget), counted with the cost tokenizer; the reply is assumed to be
:data:`ASSUMED_OUTPUT_TOKENS` tokens (the last line and a little more), and at most
``max_tokens``. After the run: the tokens the API reported (``usage``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import params as P
from ..cost.chat import chat_cost, find_chat_price, provider_of
from ..cost.tokens import count_tokens
from ..dataset import Dataset
from ..errors import CHAT_ERRORS
from ..i18n import Joined, error, text
from .answers import read_grade
from .cache import Answer, JudgeCache, text_hashes
from .calibration import (
    DEFAULT_CALIBRATION,
    REFERENCE,
    agreement_report,
    sample_calibration,
)
from .pool import Pool, build_pool
from .prompt import (
    DEFAULT_DOC_TOKENS,
    PROMPT_VERSION,
    cut_passages,
    is_japanese,
    prompt_text,
    template_tokens,
)

#: reply tokens assumed per request in the estimate ("##final score: 2" is 6 in cl100k)
ASSUMED_OUTPUT_TOKENS = 10
#: the most tokens a reply may take (a longer one is cut: finish_reason length, not read)
DEFAULT_MAX_TOKENS = P.JUDGE["max_tokens"].default
#: why a pair got no grade -> its phrase with the count, in the sentence of a job that gave
#: no grade at all
REASON_KEYS = {
    "out_of_range": "judge.reason.out_of_range", "refusal": "judge.reason.refusal",
    "html": "judge.reason.html", "length": "judge.reason.length", "empty": "judge.reason.empty",
    "unreadable": "judge.reason.unreadable", "quoted": "judge.reason.quoted",
    "conflicting": "judge.reason.conflicting", "bad_reply": "judge.reason.bad_reply",
    "too_long": "judge.reason.too_long", "server": "judge.reason.server",
    "refused": "judge.reason.refused",
}
#: failed requests that map to one failure kind of the service layer (the rest: bad_reply)
_KIND_OF = {"server": "server", "refused": "refused", "too_long": "too_long"}
#: the cutoff of :meth:`JudgeResult.effect`
EFFECT_K = 10
#: requests handed to the client at once (bounds the prompts held in memory)
CHUNK = 2_000

__all__ = ["ASSUMED_OUTPUT_TOKENS", "DEFAULT_MAX_TOKENS", "JudgeJob", "JudgeResult",
           "label_source"]


def label_source(model: str, version: str = PROMPT_VERSION) -> str:
    """The source of every label the judge gives: ``llm:<model>@<prompt version>``."""
    return f"llm:{model}@{version}"


@dataclass
class JudgeResult:
    """What a run gave: ``grades[i]`` for item ``i`` (nan: no grade), the reasons of the
    pairs left unjudged, usage and cost."""

    job: JudgeJob
    grades: np.ndarray
    reasons: Counter
    usage: dict
    cost: dict
    seconds: float
    calibration: dict | None = None
    unread_examples: dict = field(default_factory=dict)
    #: the first failure's sentence of each kind of failed request (a server error, …)
    failure_messages: dict = field(default_factory=dict)
    #: item -> why it got no grade
    item_reasons: dict = field(default_factory=dict)

    @property
    def unreadable(self) -> int:
        return int(sum(self.reasons.values()))

    def require_grades(self) -> None:
        """Raise one sentence when the job was due to give labels and gave none: no gap pair
        got a grade (or, with no gap to judge, no calibration pair did). When every such
        pair failed the same way on the way there (HTTP 500, …), the error is that
        failure's kind (a :class:`~ragdash.errors.ServerError`, …) and says its sentence;
        otherwise a :class:`~ragdash.errors.BadReplyError` with the reasons counted."""
        job = self.job
        gap = job.kinds == 0
        wanted = gap if gap.any() else np.ones(len(job.items), bool)
        if not wanted.any() or not np.isnan(self.grades[wanted]).all():
            return
        n = int(wanted.sum())
        counted = Counter(self.item_reasons.get(i, "unreadable")
                          for i in np.flatnonzero(wanted).tolist())
        if len(counted) == 1 and next(iter(counted)) in self.failure_messages:
            kind = next(iter(counted))
            failed = CHAT_ERRORS[_KIND_OF.get(kind, "bad_reply")]
            raise error(failed, "judge.all_failed", n=n, model=job.model,
                        said=self.failure_messages[kind])
        reasons = Joined(text(REASON_KEYS[r], n=c) for r, c in sorted(counted.items())
                         if r in REASON_KEYS)
        unread = CHAT_ERRORS["bad_reply"]
        raise error(unread, "judge.none_graded", n=n, model=job.model, reasons=reasons)

    def gap_labels(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(query ids, doc ids, grades) of the gap pairs the judge graded."""
        job = self.job
        gap = job.kinds == 0
        ok = gap & ~np.isnan(self.grades)
        idx = job.items[ok]
        return (job.pool.query_ids[idx], job.pool.doc_ids[idx],
                self.grades[ok].astype(np.int64))

    def qrels(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for q, d, g in zip(*(a.tolist() for a in self.gap_labels())):
            out.setdefault(q, {})[d] = g
        return out

    def judgment_set(self):
        """The gap labels as a :class:`ragdash.judgments.JudgmentSet` named and sourced
        ``llm:<model>@<prompt version>``."""
        from ..judgments import JudgmentSet

        return JudgmentSet.from_qrels(self.qrels(),
                                      source=label_source(self.job.model, self.job.version))

    def effect(self, k: int = EFFECT_K) -> dict:
        """What the labels change: each run's nDCG@k and judged@k under the human qrels and
        under the human qrels filled with these labels (:func:`ragdash.judgments.fill`: a
        human label is never replaced), over the queries the human qrels judge; and Kendall's
        τ between the runs' two orders by nDCG@k."""
        from ..judgments import fill
        from ..metrics import evaluate
        from ..stats.agreement import kendall_tau

        job = self.job
        human = job.dataset.qrels
        filled = fill(human, self.judgment_set()).qrels
        pooled = set(job.pool.query_ids.tolist())
        queries = [q.id for q in job.dataset.queries if q.id in human and q.id in pooled]
        runs = []
        for name, ranking in zip(job.names, job.rankings):
            row = {"run": name}
            for label, qrels in (("human", human), ("filled", filled)):
                table = evaluate(ranking, qrels, kmax=k, queries=queries,
                                 relevance_level=job.relevance_level)
                row[f"ndcg@{k}_{label}"] = float(table.mean(f"ndcg@{k}"))
                row[f"judged@{k}_{label}"] = float(table.mean(f"judged@{k}"))
            runs.append(row)
        tau = kendall_tau([r[f"ndcg@{k}_human"] for r in runs],
                          [r[f"ndcg@{k}_filled"] for r in runs])
        return {"k": k, "queries": len(queries), "runs": runs,
                "tau": float(tau) if np.isfinite(tau) else None}


class JudgeJob:
    """The plan of one judging job (see the module docstring); nothing is sent before
    :meth:`run`."""

    def __init__(self, dataset: Dataset, rankings: Sequence, *, depth: int, endpoint: str,
                 model: str, names: Sequence[str] | None = None, calibrate: int | None = None,
                 doc_tokens: int = DEFAULT_DOC_TOKENS, max_tokens: int = DEFAULT_MAX_TOKENS,
                 relevance_level: float | None = None, cache: JudgeCache | None = None,
                 base_url: str | None = None, seed: int = 0) -> None:
        self.dataset = dataset
        self.rankings = list(rankings)
        self.names = list(names) if names is not None else [r.name for r in self.rankings]
        self.endpoint, self.model = endpoint, model
        self.version = PROMPT_VERSION
        self.max_tokens = int(max_tokens)
        self.relevance_level = relevance_level
        self.seed = seed
        self.cache = cache if cache is not None else JudgeCache()
        self.provider = provider_of(base_url or endpoint)
        self.price = find_chat_price(model, self.provider)
        self.pool: Pool = build_pool(self.rankings, depth, dataset.qrels,
                                     known_queries=dataset.query_ids,
                                     known_docs=dataset.doc_ids, names=self.names)
        judged = self.pool.judged
        if calibrate is None:
            calibrate = DEFAULT_CALIBRATION if judged.any() else 0
        self.calibration_asked = int(calibrate)
        gap = np.flatnonzero(~judged)
        cal = sample_calibration(self.pool, int(calibrate), seed=seed)
        #: pool index of every item to judge, and its kind (0 gap, 1 calibration)
        self.items = np.concatenate([gap, cal]).astype(np.int64)
        self.kinds = np.concatenate([np.zeros(len(gap), np.int8), np.ones(len(cal), np.int8)])
        self._texts(doc_tokens)

    # -- texts, keys and tokens ------------------------------------------------------------
    def _texts(self, doc_tokens: int) -> None:
        pool, ds = self.pool, self.dataset
        qids, q_inv = np.unique(pool.query_ids[self.items].astype(str), return_inverse=True)
        dids, d_inv = np.unique(pool.doc_ids[self.items].astype(str), return_inverse=True)
        queries = [ds.query(q).text for q in qids.tolist()]
        docs = [ds.document(d) for d in dids.tolist()]
        self.passages = cut_passages([d.title for d in docs], [d.text for d in docs],
                                     doc_tokens)
        q_tokens = np.asarray(count_tokens(queries, per_text=True).per_text or (),
                              dtype=np.int64)
        self.token_method = self.passages.method
        self.queries, self.q_inv, self.d_inv = queries, q_inv, d_inv
        q_hash, d_hash = text_hashes(queries), text_hashes(self.passages.texts)
        self.keys = [(q_hash[q], d_hash[d]) for q, d in zip(q_inv.tolist(), d_inv.tolist())]
        q_ja = np.fromiter((is_japanese(t) for t in queries), bool, len(queries))
        d_ja = np.fromiter((is_japanese(t) for t in self.passages.texts), bool,
                           len(self.passages.texts))
        self.japanese = q_ja[q_inv] | d_ja[d_inv] if len(self.items) else np.zeros(0, bool)
        self.input_tokens = np.zeros(len(self.items), np.int64)
        if len(self.items):
            fixed = np.where(self.japanese, template_tokens("ja"), template_tokens("en"))
            self.input_tokens = fixed + q_tokens[q_inv] + self.passages.tokens[d_inv]
        cached = self.cache.get_many(self.endpoint, self.model, self.version, self.keys)
        self.cached = {i: cached[k] for i, k in enumerate(self.keys) if k in cached}
        self.due = np.array([i not in self.cached for i in range(len(self.items))], bool)

    def shown(self, i: int) -> tuple[str, str]:
        """The query and the passage of item ``i`` as the judge is shown them."""
        return self.queries[self.q_inv[i]], self.passages.texts[self.d_inv[i]]

    def prompt(self, i: int) -> str:
        """The prompt of item ``i``."""
        return prompt_text(self.queries[self.q_inv[i]], self.passages.texts[self.d_inv[i]],
                           "ja" if self.japanese[i] else "en", self.version)

    # -- before ----------------------------------------------------------------------------
    def _cost(self, mask: np.ndarray) -> dict:
        n = int(mask.sum())
        tokens = int(self.input_tokens[mask].sum())
        out = {"requests": n, "input_tokens": tokens}
        assumed = chat_cost(tokens, n * ASSUMED_OUTPUT_TOKENS, self.price)
        most = chat_cost(tokens, n * self.max_tokens, self.price)
        out.update(output_tokens=n * ASSUMED_OUTPUT_TOKENS, usd=assumed["usd"],
                   jpy=assumed["jpy"], usd_max=most["usd"], jpy_max=most["jpy"])
        return out

    def estimate(self) -> dict:
        """Pool size and the cost of what is not cached, per run and in total (JSON-safe)."""
        pool = self.pool
        gap, cal = self.kinds == 0, self.kinds == 1
        per_run = pool.per_run()
        member = pool.member[self.items]
        for r, row in enumerate(per_run):
            mine = gap & member[:, r]
            row["cached"] = int((mine & ~self.due).sum())
            row.update(self._cost(mine & self.due))
        price = None
        if self.price is not None:
            p = self.price
            price = {"provider": p.provider, "model": p.model,
                     "usd_per_1m_input": p.usd_per_1m_input,
                     "usd_per_1m_output": p.usd_per_1m_output, "source_url": p.source_url,
                     "as_of": p.as_of}
        return {
            "pool": len(pool), "already_judged": int(pool.judged.sum()),
            "to_judge": int(gap.sum()), "calibration_pairs": int(cal.sum()),
            "cached": int((~self.due).sum()), "depth": pool.depth,
            "runs": per_run,
            "calibration": self._cost(cal & self.due),
            "total": self._cost(self.due),
            "assumed_output_tokens": ASSUMED_OUTPUT_TOKENS, "max_tokens": self.max_tokens,
            "doc_tokens": self.passages.budget,
            "passages_cut": int(self.passages.cut.sum()),
            "token_method": self.token_method, "price": price,
            "model": self.model, "prompt_version": self.version,
            "source": label_source(self.model, self.version),
            "unknown_queries": pool.unknown_queries, "unknown_docs": pool.unknown_docs,
        }

    # -- the run ---------------------------------------------------------------------------
    def run(self, client, *, progress: Callable[[dict], None] | None = None,
            cancel=None) -> JudgeResult:
        """Send what is due through ``client`` (a :class:`ragdash.services.chat.ChatClient`),
        cache every final answer as it arrives, and read the labels."""
        from ..services.chat import ChatRequest

        answers: dict[int, Answer] = dict(self.cached)
        due = np.flatnonzero(self.due).tolist()
        total = len(due)
        spent = {"prompt_tokens": 0, "completion_tokens": 0, "unreported": 0, "requests": 0}
        examples: dict[str, str] = {}
        failures: dict[str, object] = {}
        started = time.monotonic()
        state = {"done": 0}

        def report() -> None:
            if progress is None:
                return
            done = state["done"]
            elapsed = time.monotonic() - started
            cost = chat_cost(spent["prompt_tokens"], spent["completion_tokens"], self.price)
            progress({"done": done, "total": total,
                      "tokens": spent["prompt_tokens"] + spent["completion_tokens"],
                      "usd": cost["usd"], "jpy": cost["jpy"],
                      "seconds_left": (elapsed / done * (total - done)) if done else None})

        def ask(batch: list[int], last_try: bool) -> list[int]:
            again: list[int] = []
            requests = [ChatRequest([{"role": "user", "content": self.prompt(i)}],
                                    temperature=0.0, max_tokens=self.max_tokens)
                        for i in batch]

            def on_result(j: int, result) -> None:
                i = batch[j]
                spent["requests"] += 1
                pt, ct = result.prompt_tokens, result.completion_tokens
                spent["prompt_tokens"] += pt or 0
                spent["completion_tokens"] += ct or 0
                spent["unreported"] += pt is None
                if result.ok:
                    grade, reason = read_grade(result.text, quoted=self.shown(i))
                else:
                    grade, reason = None, result.kind
                    failures.setdefault(result.kind, result.message)
                if grade is None and not last_try:
                    again.append(i)
                    return
                answer = Answer(grade, reason, pt, ct)
                if grade is not None:  # what could not be read is asked again next time
                    self.cache.put(self.endpoint, self.model, self.version, self.keys[i],
                                   answer)
                answers[i] = answer
                if reason is not None:
                    examples.setdefault(reason, f"{self.pool.query_ids[self.items[i]]} / "
                                                f"{self.pool.doc_ids[self.items[i]]}")
                state["done"] += 1
                report()

            client.complete_many(requests, on_result=on_result, cancel=cancel)
            return again

        if due:
            self.cache.check_writable()  # before the first paid request
        report()
        for lo in range(0, total, CHUNK):
            retry = ask(due[lo:lo + CHUNK], last_try=False)
            if retry:
                ask(retry, last_try=True)
        seconds = time.monotonic() - started

        grades = np.full(len(self.items), np.nan)
        reasons: Counter = Counter()
        item_reasons: dict[int, str] = {}
        for i, a in answers.items():
            if a.grade is not None:
                grades[i] = a.grade
            else:
                item_reasons[i] = a.reason or "unreadable"
                reasons[item_reasons[i]] += 1
        usage = {"requests": spent["requests"], "pairs_sent": total,
                 "cached_pairs": len(self.cached),
                 "prompt_tokens": spent["prompt_tokens"],
                 "completion_tokens": spent["completion_tokens"],
                 "replies_without_usage": spent["unreported"],
                 "retries": int(getattr(client, "usage", {}).get("retries", 0))}
        actual = chat_cost(spent["prompt_tokens"], spent["completion_tokens"], self.price)
        result = JudgeResult(self, grades, reasons, usage,
                             {"estimate": self._cost(self.due), "actual": actual}, seconds,
                             unread_examples=examples, failure_messages=failures,
                             item_reasons=item_reasons)
        result.calibration = self._calibration(grades)
        return result

    def _calibration(self, grades: np.ndarray) -> dict | None:
        cal = np.flatnonzero(self.kinds == 1)
        if not len(cal):
            return None
        graded = cal[~np.isnan(grades[cal])]
        if not len(graded):  # nothing to agree on: no figure rather than a figure of nothing
            return {"pairs": 0, "sent": len(cal), "unjudged": len(cal), "confusion": [],
                    "kappa": None, "kappa_ci": [None, None], "weighted_kappa": None,
                    "weighted_kappa_ci": [None, None], "weights": "quadratic",
                    "relevance_level": self.relevance_level, "tau": None, "runs": [],
                    "reference": REFERENCE}
        idx = self.items[graded]
        report = agreement_report(
            self.pool.human[idx], grades[graded],
            queries=self.pool.query_ids[idx].tolist(), docs=self.pool.doc_ids[idx].tolist(),
            rankings=self.rankings, names=self.names, relevance_level=self.relevance_level,
            seed=self.seed)
        report["sent"] = len(cal)
        report["unjudged"] = int(len(cal) - len(graded))
        return report
