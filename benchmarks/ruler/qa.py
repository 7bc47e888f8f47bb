"""RULER's QA data: SQuAD v2.0 dev (qa_1) and HotpotQA dev distractor (qa_2), read as RULER
reads them (spec section 3.5), from the data registry (fixtures/data/registry.py).

Documents are the sorted unique paragraphs (SQuAD: contexts; HotpotQA: ``title\\n`` + its
sentences joined); questions keep file order (sample i asks question i). SQuAD drops
unanswerable questions and keeps, per question, its paragraph (gold) and the other
paragraphs of its article (used first as distractors); HotpotQA's gold documents are all the
paragraphs listed with the question.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from fixtures.data.registry import data_dir, data_file, read_checked, registered_fix

from .stimulus import QaData

FILES = {"squad": "squad/dev-v2.0.json", "hotpotqa": "hotpotqa/hotpot_dev_distractor_v1.json"}


def read_squad(path: Path) -> QaData:
    data = json.loads(Path(path).read_text(encoding="utf-8"))["data"]
    documents = sorted({p["context"] for article in data for p in article["paragraphs"]})
    index = {document: i for i, document in enumerate(documents)}
    questions = []
    for article in data:
        article_documents = [index[p["context"]] for p in article["paragraphs"]]
        for paragraph in article["paragraphs"]:
            gold = index[paragraph["context"]]
            for qa in paragraph["qas"]:
                if qa.get("is_impossible"):
                    continue
                questions.append({"query": qa["question"],
                                  "outputs": [a["text"] for a in qa["answers"]],
                                  "context": [gold],
                                  "more": [i for i in article_documents if i != gold]})
    return QaData(tuple(documents), tuple(questions))


def read_hotpotqa(path: Path) -> QaData:
    data = json.loads(Path(path).read_text(encoding="utf-8"))

    def document(title: str, sentences: list[str]) -> str:
        return f"{title}\n{''.join(sentences)}"

    documents = sorted({document(t, s) for item in data for t, s in item["context"]})
    index = {text: i for i, text in enumerate(documents)}
    questions = tuple({"query": item["question"], "outputs": [item["answer"]],
                       "context": [index[document(t, s)] for t, s in item["context"]],
                       "more": []} for item in data)
    return QaData(tuple(documents), questions)


READERS = {"squad": read_squad, "hotpotqa": read_hotpotqa}


@functools.lru_cache(maxsize=None)
def load(dataset: str) -> QaData:
    """The dataset from the data registry (sha256-checked; downloaded when missing and
    the machine is online). DataUnavailable names the file and where it goes, or what is
    wrong with it."""
    return read_checked(data_file(FILES[dataset]), READERS[dataset],
                        registered_fix(FILES[dataset]))


def check_available(dataset: str) -> None:
    """At collection: nothing is read when the file is there (the solver checks its hash);
    when it is missing it is downloaded if possible, else DataUnavailable says so."""
    if not (data_dir() / FILES[dataset]).exists():
        data_file(FILES[dataset])
