"""The grid: a source's questions x conditions (focused, padded at each length, full).

Three sources, one schema of samples:

- ``chroma``: Chroma's 306 rows (chroma.py), each question's focused and full prompt;
- ``longmemeval``: LongMemEval's longmemeval_s (longmemeval_s.py): the evidence sessions alone
  (focused), padded at each ``--longmemeval-lengths`` length, and the whole history (full);
- ``generated``: contextrot's own histories (generate.py), the same conditions.

``auto`` (the default) takes Chroma's rows where they are in the data directory, else
LongMemEval's file, else the generated histories; a data source needs ``--judge-model``
(its answers are free text that only an LLM judge grades, as Chroma's and LongMemEval's
judges do), so without one ``auto`` is the generated source, whose answers a deterministic
judge grades.

Ids read ``gen-q002-focused``, ``lme-q017-pad16k``, ``chr-q305-full``: the source, the
question's number in the source's order, the condition (``-k`` selects exactly).
"""

from __future__ import annotations

import dataclasses
import re

from fixtures.pytest_face.parametrize import SampleParams, tokens_id

import benchmarks.longmemeval.chroma as chroma
import benchmarks.longmemeval.generate as generate
import benchmarks.longmemeval.longmemeval_s as longmemeval_s

SOURCES = ("generated", "chroma", "longmemeval")
SOURCE_IDS = {"generated": "gen", "chroma": "chr", "longmemeval": "lme"}
SOURCE_CHOICES = ("auto", *SOURCES)
CHROMA_TYPES = ("knowledge-update", "temporal-reasoning", "multi-session")
GENERATED_QUESTIONS = {"full": 60, "test": 3}  # one per type at test scale: 6 prompts, ~4k tokens
LENGTHS = {"full": (8192, 16384, 32768, 65536), "test": ()}  # padded lengths by default
MAX_TOKENS = {"full": 1000, "test": 48}  # Chroma's runs send 1,000 (its provider's default)
JUDGES = ("chroma", "longmemeval")
K = 1024
LENGTH = re.compile(r"(\d+(?:\.\d+)?)([km]?)", re.IGNORECASE)
MIN_LENGTH = 256


@dataclasses.dataclass(frozen=True)
class LongMemEvalSample(SampleParams):
    source: str
    index: int  # the question's number in its source's order
    question_id: str
    question_type: str
    condition: str  # "focused", "padded" or "full"
    target: int | None  # padded: the history's budget in tokens (the run's unit)
    seed: int | None  # generated questions, and the padding order
    abstention: bool  # LongMemEval's unanswerable questions (id ending in _abs)

    @property
    def id(self) -> str:
        condition = tokens_id("pad", self.target) if self.condition == "padded" \
            else self.condition
        return f"{SOURCE_IDS[self.source]}-q{self.index:03d}-{condition}"


@dataclasses.dataclass(frozen=True)
class Settings:
    scale: str
    source: str
    files: tuple[str, ...]  # the data files read (chroma, longmemeval); () for generated
    questions: int | None  # None: all the source has
    types: tuple[str, ...]
    lengths: tuple[int, ...]
    seed: int
    judge: str  # whose judge prompt an LLM judge gets: "chroma" or "longmemeval"
    max_tokens: int
    has_judge: bool


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError naming
    the fix, missing data DataUnavailable. Reads no data file (only stats)."""
    scale = option("scale")
    given = option("longmemeval_file")
    has_judge = bool(option("judge_model"))
    choice = option("longmemeval_source")
    if choice == "auto":
        if given:  # a file given: Chroma's rows (LongMemEval's file is named by its source)
            source = "chroma"
        elif not has_judge:
            source = "generated"
        else:
            source = "chroma" if chroma.present() else (
                "longmemeval" if longmemeval_s.present() else "generated")
    else:
        source = choice
    if source != "generated" and not has_judge:
        raise ValueError(f"--longmemeval-source {source} needs --judge-model: its answers are "
                         "free text graded by an LLM judge (Chroma's prompt by default); "
                         "without one only the generated histories are judged")
    questions = option("longmemeval_questions")
    if questions is not None and questions < 1:
        raise ValueError(f"--longmemeval-questions {questions}: give 1 or more")
    if source == "generated" and questions is None:
        questions = GENERATED_QUESTIONS[scale]
    max_tokens = option("longmemeval_max_tokens")
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"--longmemeval-max-tokens {max_tokens}: give 1 or more tokens")
    files: tuple[str, ...] = ()
    if source == "chroma":
        files = chroma.paths(given)
    elif source == "longmemeval":
        files = (longmemeval_s.path(given),)
    elif given:
        raise ValueError("--longmemeval-file is read by --longmemeval-source chroma or "
                         "longmemeval, not by the generated histories")
    return Settings(scale=scale, source=source, files=files, questions=questions,
                    types=parse_types(option("longmemeval_types")),
                    lengths=parse_lengths(option("longmemeval_lengths"), scale),
                    seed=option("longmemeval_seed"), judge=option("longmemeval_judge"),
                    max_tokens=max_tokens or MAX_TOKENS[scale], has_judge=has_judge)


def parse_lengths(value: str | None, scale: str) -> tuple[int, ...]:
    """``--longmemeval-lengths 8k,16k`` (k = 1,024 tokens, m = 1,048,576) or token counts;
    ``none`` for focused and full only."""
    if value is None:
        return LENGTHS[scale]
    if value.strip().lower() == "none":
        return ()
    lengths = set()
    for part in (p.strip() for p in value.split(",") if p.strip()):
        match = LENGTH.fullmatch(part)
        tokens = float(match.group(1)) * {"": 1, "k": K, "m": K * K}[match.group(2).lower()] \
            if match else 0.0
        if not tokens.is_integer() or tokens < MIN_LENGTH:
            raise ValueError(f"--longmemeval-lengths {value!r}: {part!r} is not a length of at "
                             f"least {MIN_LENGTH} tokens; write e.g. 8k,16k,64k (k = 1,024) "
                             "or none")
        lengths.add(int(tokens))
    return tuple(sorted(lengths))


def parse_types(value: str | None) -> tuple[str, ...]:
    if value is None:
        return CHROMA_TYPES
    return tuple(sorted({part.strip() for part in value.split(",") if part.strip()}))


def build(s: Settings) -> list[LongMemEvalSample]:
    """Question by question, each one's conditions in order: focused, padded (shortest
    first), full."""
    samples = []
    for index, (question_id, kind, conditions) in enumerate(_questions(s)):
        abstention = question_id.endswith("_abs")
        seed = s.seed if s.source != "chroma" else None
        for condition, target in conditions:
            samples.append(LongMemEvalSample(s.source, index, question_id, kind, condition,
                                             target, seed, abstention))
    return samples


def _questions(s: Settings):
    """(id, type, conditions) per question, in the source's order."""
    padded = [("padded", length) for length in s.lengths]
    if s.source == "generated":
        for index in range(s.questions):
            yield (f"gen{s.seed}_{index:04d}", generate.TYPES[index % len(generate.TYPES)],
                   [("focused", None), *padded, ("full", None)])
        return
    if s.source == "chroma":
        rows = chroma.rows(s.files)[:s.questions]
        for row in rows:
            yield row.question_id, row.question_type, [(c, None) for c, _ in row.prompts]
        return
    chosen = [q for q in longmemeval_s.questions(s.files[0]) if q.question_type in s.types]
    if not chosen:
        raise ValueError(f"--longmemeval-types {','.join(s.types)}: no question of these "
                         "types in the file")
    for question in chosen[:s.questions]:
        yield (question.question_id, question.question_type,
               [("focused", None), *padded, ("full", None)])


def smoke_rule(samples: list[LongMemEvalSample]):
    """One small sample: the first question's focused prompt."""
    first = next((x for x in samples if x.condition == "focused"), None)
    return lambda sample: sample == first
