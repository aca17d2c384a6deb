"""The datasets ragdash ships, so the app and the command line have data on a fresh install.

    list_samples() -> [Sample]          name, title / description in en and ja, license
    load_sample(name) -> Dataset        "jsquad-mini" (the default) or "article-ja"

- ``jsquad-mini``: 284 Japanese Wikipedia paragraphs and 280 questions from JSQuAD (JGLUE),
  graded 2 / 1, in BEIR layout; CC BY-SA 4.0 (see ``data/samples/jsquad-mini/README.md``).
  Regenerate with ``python scripts/make_jsquad_mini.py``. Large enough for real curves.
- ``article-ja``: the original article's 10 documents and 3 queries with fractional grades, in
  the article's own JSON format, kept for fidelity with the article.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from .dataset import Dataset
from .i18n import dataset_error
from .loaders import load_dataset

SAMPLES_DIR = Path(__file__).resolve().parent / "data" / "samples"
DEFAULT_SAMPLE = "jsquad-mini"


@dataclass(frozen=True)
class Sample:
    name: str
    title: dict[str, str]        # {"en": ..., "ja": ...}
    description: dict[str, str]  # {"en": ..., "ja": ...}
    license: str
    attribution: str
    path: str                    # relative to ragdash/data/samples
    documents: int
    queries: int

    def title_for(self, lang: str) -> str:
        return self.title.get(lang) or self.title["en"]

    def description_for(self, lang: str) -> str:
        return self.description.get(lang) or self.description["en"]

    def to_dict(self) -> dict:
        return asdict(self)


SAMPLES: dict[str, Sample] = {
    "jsquad-mini": Sample(
        name="jsquad-mini",
        title={"en": "JSQuAD mini (Japanese Wikipedia QA)",
               "ja": "JSQuAD mini（日本語Wikipediaの質問応答）"},
        description={
            "en": "284 paragraphs from 9 Japanese Wikipedia articles and 280 questions, each "
                  "judged against its source paragraph (grade 2) and other paragraphs that "
                  "contain the answer (grade 1). A slice of JSQuAD's validation set.",
            "ja": "日本語Wikipedia 9記事の284段落と280件の質問。質問の元になった段落を関連度2、"
                  "答えを含む他の段落を関連度1としています。JSQuAD検証セットの一部です。",
        },
        license="CC BY-SA 4.0",
        attribution="JSQuAD from JGLUE (Yahoo Japan Corporation and Waseda University), "
                    "derived from Japanese Wikipedia; sliced by ragdash",
        path="jsquad-mini",
        documents=284,
        queries=280,
    ),
    "article-ja": Sample(
        name="article-ja",
        title={"en": "The article's sample (10 documents, 3 queries)",
               "ja": "元記事のサンプル（文書10件・クエリ3件）"},
        description={
            "en": "The sample dataset from the original article, in its own JSON format, with "
                  "fractional relevance scores (0.7 to 1.0). Too small for meaningful curves; "
                  "kept to reproduce the article.",
            "ja": "元記事のサンプルデータセット（記事のJSON形式、関連度0.7〜1.0）。"
                  "曲線を見るには小さすぎますが、記事の再現用に同梱しています。",
        },
        license="from the article that ragdash grew from; sample data for demonstration",
        attribution="generate_sample_dataset() in the original Japanese article",
        path="article_ja.json",
        documents=10,
        queries=3,
    ),
}


def list_samples() -> list[Sample]:
    """The bundled samples, the default first."""
    return [SAMPLES[DEFAULT_SAMPLE], *(s for n, s in SAMPLES.items() if n != DEFAULT_SAMPLE)]


def sample_path(name: str) -> Path:
    return SAMPLES_DIR / _get(name).path


def _get(name: str) -> Sample:
    try:
        return SAMPLES[name]
    except KeyError:
        raise dataset_error("samples.unknown", record=name, name=name,
                            names=", ".join(SAMPLES)) from None


def load_sample(name: str = DEFAULT_SAMPLE) -> Dataset:
    """Load a bundled sample by name; its ``source`` is ``"sample:<name>"``."""
    sample = _get(name)
    dataset = load_dataset(SAMPLES_DIR / sample.path)
    dataset.name = sample.name
    dataset.source = f"sample:{sample.name}"
    return dataset
