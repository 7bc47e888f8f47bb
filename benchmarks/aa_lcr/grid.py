"""The grid: questions x lengths (the native one, then the sweep's) x repeats; the settings.

Two sources, both in the card's layout (dataset.py):

- ``card``: the user-fetched dataset, ``AA-LCR_Dataset.csv`` and
  ``AA-LCR_extracted-text.zip`` in the data directory's ``aa_lcr/`` (sha256-checked, the
  registry's: fixtures/data/registry.py), or as found in ``--aa-lcr-dir DIR`` (its CSV and its
  ``extracted_text/`` zip, read unverified). It needs ``--judge-model``.
- ``miniature``: miniature.py's six questions, written to a temporary folder in the same
  layout and read by the same reader; judged by the card's checker with ``--judge-model``,
  else by the miniature's deterministic check.

``auto`` (the default) is the card where its files are, else the miniature. Lengths are the
run's tokens (``--tokenizer``); ``0`` is the native prompt. Ids read
``card-q017-native-r00`` or ``mini-q002-ctx1k-r01`` (``-k ctx1k`` never selects ``ctx128k``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from benchmarks.texts import fitting
from benchmarks.texts.fitting import length_id
from fixtures.pytest_face.parametrize import SampleParams

import benchmarks.aa_lcr.dataset as dataset
import benchmarks.aa_lcr.miniature as miniature

K, M = fitting.K, fitting.M
FULL_LENGTHS = (128 * K, 256 * K, 512 * K, M)
# --scale test: the embedded model's 8k context and its main-job share (about 30 s):
# two questions, native (about 200 tokens) and at 1k.
TEST_LENGTHS = (K,)
QUESTIONS = {"full": None, "test": 2}  # None: every question of the source
MIN_LENGTH = 512
DEFAULT_MAX_TOKENS = {"full": None, "test": 32}  # None: not sent (the endpoint's own limit)
DEFAULT_TEMPERATURE = {"full": None, "test": 0.0}
SOURCE_IDS = {"card": "card", "miniature": "mini"}
SOURCE_CHOICES = ("auto", "card", "miniature")
FOLDER = "aa_lcr"
REVISION = "bdae010bbce259820c0e34c1d7cce210d966fb75"  # the registry's (fixtures/data/registry.py)
FETCH = (f"fetch AA-LCR yourself: https://huggingface.co/datasets/ArtificialAnalysis/AA-LCR "
         f"(revision {REVISION[:7]}, Apache-2.0 questions) into the data directory's "
         f"{FOLDER}/: {dataset.CSV_NAME} and extracted_text/{dataset.ZIP_NAME}, or give "
         "--aa-lcr-dir DIR")


@dataclasses.dataclass(frozen=True)
class AalcrSample(SampleParams):
    source: str  # "card" or "miniature"
    question_id: int
    length: int  # 0: the native prompt; else the sweep's length in the run's tokens
    repeat: int
    seed: int

    @property
    def id(self) -> str:
        length = "native" if self.length == 0 else length_id(self.length)
        return f"{SOURCE_IDS[self.source]}-q{self.question_id:03d}-{length}-r{self.repeat:02d}"


@dataclasses.dataclass(frozen=True)
class Settings:
    source: str
    csv_path: Path
    zip_path: Path
    verified: bool  # the registry's sha256 checked (the data directory's files)
    lengths: tuple[int, ...]
    questions: int | None
    repeats: int
    seed: int
    max_tokens: int | None
    temperature: float | None

    @property
    def fix(self) -> str:
        return FETCH if self.source == "card" else "rebuild the miniature (a bug)"


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError with its
    fix. Whether the card's files are there is a stat; they are read by ``questions``."""
    scale = option("scale")
    lengths = parse_lengths(option("aa_lcr_lengths"), scale)
    repeats = option("aa_lcr_repeats")
    if repeats < 1:
        raise ValueError(f"--aa-lcr-repeats {repeats}: give 1 or more repeats per question")
    count = option("aa_lcr_questions")
    count = QUESTIONS[scale] if count is None else count
    if count is not None and count < 1:
        raise ValueError(f"--aa-lcr-questions {count}: give 1 or more")
    directory, choice = option("aa_lcr_dir"), option("aa_lcr_source")
    card = card_paths(directory)
    if choice == "auto":
        choice = "card" if card is not None else "miniature"
    if choice == "card" and card is None:
        raise ValueError(f"AA-LCR's dataset is not in "
                         f"{directory or f'the data directory ({FOLDER}/)'}: {FETCH}")
    if choice == "card" and not option("judge_model"):
        raise ValueError("AA-LCR's questions are scored by an LLM judge: give --judge-model "
                         "(the card's checker is Qwen3 235B A22B 2507, non-reasoning), or "
                         "--aa-lcr-source miniature")
    if choice == "card":
        csv_path, zip_path, verified = *card, directory is None
    else:
        folder = miniature_folder()
        csv_path = folder / dataset.CSV_NAME
        zip_path = folder / "extracted_text" / dataset.ZIP_NAME
        verified = False
    max_tokens = option("aa_lcr_max_tokens")
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"--aa-lcr-max-tokens {max_tokens}: give a positive number")
    return Settings(choice, csv_path, zip_path, verified, lengths, count, repeats,
                    option("aa_lcr_seed"),
                    DEFAULT_MAX_TOKENS[scale] if max_tokens is None else max_tokens,
                    DEFAULT_TEMPERATURE[scale])


def card_paths(directory: str | None) -> tuple[Path, Path] | None:
    """The card's two files where they are (a stat), else None."""
    from fixtures.data.registry import data_dir

    base = Path(directory).expanduser() if directory else data_dir() / FOLDER
    paths = (base / dataset.CSV_NAME, base / "extracted_text" / dataset.ZIP_NAME)
    return paths if all(p.is_file() for p in paths) else None


@functools.lru_cache(maxsize=1)
def miniature_folder() -> Path:
    """The miniature in the card's layout, in a temporary folder named by its bytes' digest:
    written once (each process finds it, or writes its own copy and moves it into place)."""
    digest = hashlib.sha256(miniature.csv_text().encode() + miniature.zip_bytes()).hexdigest()
    folder = Path(tempfile.gettempdir()) / f"contextrot-aa-lcr-miniature-{digest[:16]}"
    if not (folder / "extracted_text" / dataset.ZIP_NAME).is_file():
        staged = miniature.write(Path(tempfile.mkdtemp(prefix="contextrot-aa-lcr-")))
        try:
            os.rename(staged, folder)
        except OSError:  # another process moved its copy first: the same bytes
            shutil.rmtree(staged, ignore_errors=True)
    return folder


def parse_lengths(value: str | None, scale: str) -> tuple[int, ...]:
    """``--aa-lcr-lengths 128k,256k,1m`` or ``none`` (the native length alone)."""
    if value is None:
        return FULL_LENGTHS if scale == "full" else TEST_LENGTHS
    if value.strip().lower() == "none":
        return ()
    return fitting.parse_lengths(value, "--aa-lcr-lengths", MIN_LENGTH, "128k,256k,512k,1m")


@functools.lru_cache(maxsize=4)
def _read(csv_path: Path, zip_path: Path, verified: bool, fix: str):
    if verified:
        from fixtures.data.registry import data_file

        csv_path = data_file(f"{FOLDER}/{dataset.CSV_NAME}")
        zip_path = data_file(f"{FOLDER}/extracted_text/{dataset.ZIP_NAME}")
    return dataset.read_questions(csv_path, fix), dataset.Documents(zip_path, fix)


def source_data(s: Settings) -> tuple[list[dataset.Question], dataset.Documents]:
    """The questions (the first ``s.questions`` in file order) and the documents."""
    found, documents = _read(s.csv_path, s.zip_path, s.verified, s.fix)
    return (found if s.questions is None else found[:s.questions]), documents


def build(s: Settings) -> list[AalcrSample]:
    """Question, then length (native first), then repeat: a question's samples back to
    back (they share the prompt up to its first filler)."""
    found, _ = source_data(s)
    return [AalcrSample(s.source, q.question_id, length, repeat, s.seed)
            for q in found for length in (0, *s.lengths) for repeat in range(s.repeats)]


def question(s: Settings, question_id: int) -> dataset.Question:
    found, _ = source_data(s)
    return next(q for q in found if q.question_id == question_id)


def smoke_rule(samples: list[AalcrSample]):
    """One small sample: the first question's native prompt, first repeat."""
    first = samples[0] if samples else None
    return lambda sample: sample == first
