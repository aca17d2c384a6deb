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
from .i18n import LANGUAGES, dataset_error, t
from .loaders import load_dataset

SAMPLES_DIR = Path(__file__).resolve().parent / "data" / "samples"
DEFAULT_SAMPLE = "jsquad-mini"


@dataclass(frozen=True)
class Sample:
    name: str
    title: dict[str, str]        # {"en": ..., "ja": ...}, from the catalog
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


def _texts(key: str) -> dict[str, str]:
    """``{lang: text}`` of a catalog key, every language."""
    return {lang: t(key, lang) for lang in LANGUAGES}


SAMPLES: dict[str, Sample] = {
    "jsquad-mini": Sample(
        name="jsquad-mini",
        title=_texts("sample.jsquad-mini.title"),
        description=_texts("sample.jsquad-mini.description"),
        license="CC BY-SA 4.0",
        attribution="JSQuAD from JGLUE (Yahoo Japan Corporation and Waseda University), "
                    "derived from Japanese Wikipedia; sliced by ragdash",
        path="jsquad-mini",
        documents=284,
        queries=280,
    ),
    "article-ja": Sample(
        name="article-ja",
        title=_texts("sample.article-ja.title"),
        description=_texts("sample.article-ja.description"),
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
