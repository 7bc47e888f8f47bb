"""The prompts of RULER's task families, at a given size (spec ruler.md section 3).

Each family has a *maker*: made from one sample (its seed), it draws what does not depend
on the prompt's size (keys, values, the chain, the words, the question) and renders the
prompt at any size n (haystack lines or words, noise lines, distinct words, coded words,
documents). fitting.py then finds the largest n that fits the target length. Sizes draw
their positions from a generator seeded by (sample, n), and haystacks grow by prefix (the
first n lines of a stream), so a prompt is a pure function of (sample, n) and grows with n.

Templates and answer prefixes are RULER's (``scripts/data/synthetic/constants.py``) byte for
byte, sent with RULER's ``base`` model template (the chat endpoint adds its own).
"""

from __future__ import annotations

import dataclasses
import math
import random
import string
import uuid

import numpy as np

from . import essay, words
from .grid import Task
from .words import FIXED_SEED

NIAH_TEMPLATE = (
    "Some special magic {type_needle_v} are hidden within the following text. Make sure to "
    "memorize it. I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are "
    "all the special magic {type_needle_v} for {query} mentioned in the provided text?")
NIAH_PREFIX = " The special magic {type_needle_v} for {query} mentioned in the provided text are"
VT_TEMPLATE = (
    "Memorize and track the chain(s) of variable assignment hidden in the following text.\n\n"
    "{context}\nQuestion: Find all variables that are assigned the value {query} in the text "
    "above.")
VT_PREFIX = (" Answer: According to the chain(s) of variable assignment in the text above, "
             "{num_v} variables are assigned the value {query}, they are: ")
CWE_TEMPLATE = (
    "Below is a numbered list of words. In these words, some appear more often than others. "
    "Memorize the ones that appear most often.\n{context}\nQuestion: What are the 10 most "
    "common words in the above list?")
CWE_PREFIX = " Answer: The top 10 words that appear most often in the list are:"
FWE_TEMPLATE = (
    "Read the following coded text and track the frequency of each coded word. Find the three "
    "most frequently appeared coded words. {context}\nQuestion: Do not provide any "
    "explanation. Please ignore the dots '....'. What are the three most frequently appeared "
    "words in the above coded text?")
FWE_PREFIX = (" Answer: According to the coded text above, the three most frequently appeared "
              "words are:")
QA_TEMPLATE = (
    "Answer the question based on the given documents. Only give me the answer and do not "
    "output any other words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the "
    "question based on the given documents. Only give me the answer and do not output any "
    "other words.\n\nQuestion: {query}")
QA_PREFIX = " Answer:"
QA_DOCUMENT = "Document {i}:\n{document}"

NEEDLE = "One of the special magic {type_needle_v} for {key} is: {value}."
NOISE = ("The grass is green. The sky is blue. The sun is yellow. Here we go. There and back "
         "again.")
# Needle depths in the essay: round(linspace(0, 100, 40)), 0 to 100 in 40 steps.
DEPTHS = tuple(int(depth) for depth in np.round(np.linspace(0, 100, num=40)))
SMALL = 4096  # below this length RULER uses smaller increments and CWE a smaller example
# Below this length (never RULER's: the embedded model's grid, 208 to 512 tokens) a noise or
# needle haystack grows by one line, not 5, and a needle haystack may be the needle alone: a
# prompt of a few lines fits, and the sizes between two lengths are not one increment apart.
TINY = 512


@dataclasses.dataclass(frozen=True)
class Prompt:
    """A prompt as RULER stores it: ``input`` ends where ``answer_prefix`` begins."""

    input: str
    answer_prefix: str
    outputs: tuple[str, ...]  # the references the answer must contain

    @property
    def text(self) -> str:
        return self.input + self.answer_prefix


# How the answer prefix is sent (--ruler-answer-prefix): RULER sends chat APIs one user
# message ending in it; a prefill sends it as the assistant's unfinished answer. vLLM and
# SGLang continue a final assistant message only when asked to (their chat API's flags).
PREFILL_PARAMS = {"user": {}, "prefill": {},
                  "prefill-vllm": {"continue_final_message": True,
                                   "add_generation_prompt": False}}


# --ruler-answer-prefix auto: RULER's model templates end the prompt inside the assistant's
# turn for open models (a prefill) and send hosted APIs one user message. An open-model
# server is known by what its /models card says it is (``owned_by``), and gets the prefill
# in the form it continues; anything else (hosted APIs, servers that do not say, and
# llama-cpp-python's "me", whose chat handler never continues a message) gets RULER's API
# form.
PREFIX_BY_SERVER = {"vllm": "prefill-vllm", "sglang": "prefill-vllm", "llamacpp": "prefill"}


def answer_prefix_form(choice: str, server_kind: str | None) -> str:
    """The form the answer prefix is sent in: ``choice``, or for ``auto`` the server's."""
    if choice != "auto":
        return choice
    return PREFIX_BY_SERVER.get(server_kind or "", "user")


def messages(prompt: Prompt, answer_prefix: str) -> list[dict[str, str]]:
    if answer_prefix == "user":
        return [{"role": "user", "content": prompt.text}]
    return [{"role": "user", "content": prompt.input},
            {"role": "assistant", "content": prompt.answer_prefix}]


def increment(task: Task, length: int) -> int:
    """RULER's ``incremental`` for the task at this length (fwe: its own step)."""
    if task.family == "fwe":
        return max(1, (length - task.tokens_to_generate) // 32)
    if task.family == "qa" or task.family == "cwe":
        return 10
    if task.haystack == "essay":
        return 500
    small = length < SMALL
    if task.family == "vt":
        return 5 if small else 10
    if length < TINY:  # not RULER's: its lengths start at 4k (see TINY)
        return 1
    return 5 if small else 25


def sized_rng(seed: str, n: int) -> random.Random:
    """Draws that depend on the size (positions, depths): seeded by the sample and n."""
    return random.Random(f"{seed}/n{n}")


def fixed_shuffle(items: list) -> list:
    """RULER's ``random.Random(42).shuffle``: one fixed permutation for each length, the same
    in every sample. Drawn with numpy's legacy generator (stable across versions), 40x
    faster than ``random``'s on a 70k-word list; not RULER's permutation, the same kind."""
    return [items[i] for i in np.random.RandomState(FIXED_SEED).permutation(len(items)).tolist()]


# -- NIAH ----------------------------------------------------------------------------------
def random_value(kind: str, rng: random.Random) -> str:
    if kind == "numbers":
        return str(rng.randint(1_000_000, 9_999_999))  # 7 digits
    if kind == "uuids":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "words":
        return words.random_key_word(rng)
    raise ValueError(f"unknown needle type {kind!r}")


def join_query(keys: list[str]) -> str:
    """``k1`` or ``k1, k2, k3, and k4``."""
    return keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + ", and " + keys[-1]


def singular(template: str) -> str:
    """RULER's rewording when one value is asked for (applied to the template, in order)."""
    for old, new in (("Some", "A"), ("are all", "is"), ("are", "is"), ("answers", "answer")):
        template = template.replace(old, new)
    return template


class NiahMaker:
    def __init__(self, task: Task, length: int, seed: str):
        self.task, self.seed = task, seed
        # below TINY a needle haystack may hold the needle alone (no distractor: the
        # embedded model's shortest length, where its curve starts)
        alone = task.haystack == "needle" and length < TINY
        self.minimum = 0 if alone else increment(task, length)
        rng = random.Random(seed)
        self.keys, self.values, needles = [], [], []
        for _ in range(task.keys):
            self.keys.append(random_value(task.key_type, rng))
            self.values.append([random_value(task.value_type, rng) for _ in range(task.values)])
            needles.extend(NEEDLE.format(type_needle_v=task.value_type, key=self.keys[-1],
                                         value=value) for value in self.values[-1])
        self.needles = fixed_shuffle(needles)
        asked = rng.sample(range(task.keys), task.queries)
        self.query = join_query([self.keys[i] for i in asked])
        self.outputs = tuple(value for i in asked for value in self.values[i])
        one = task.queries * task.values == 1
        self.type_needle_v = task.value_type[:-1] if one else task.value_type
        self.template = singular(NIAH_TEMPLATE) if one else NIAH_TEMPLATE
        self.prefix = singular(NIAH_PREFIX) if one else NIAH_PREFIX
        self._lines: list[str] = []  # the needle haystack's stream of distractor lines
        self._line_rng = random.Random(f"{seed}/haystack")

    def prompt(self, n: int) -> Prompt:
        context = self.context(n)
        fill = {"type_needle_v": self.type_needle_v, "query": self.query}
        return Prompt(self.template.format(context=context, **fill),
                      self.prefix.format(**fill), self.outputs)

    def context(self, n: int) -> str:
        rng = sized_rng(self.seed, n)
        if self.task.haystack == "essay":
            return essay_context(essay.first_sentences(n), self.needles, rng)
        lines = [NOISE] * n if self.task.haystack == "noise" else self.distractors(n)
        return insert_lines(lines, self.needles, rng)

    def distractors(self, n: int) -> list[str]:
        """The needle haystack's first n lines: needles of fresh random keys and values."""
        while len(self._lines) < n:
            key = random_value(self.task.key_type, self._line_rng)
            self._lines.append(NEEDLE.format(type_needle_v=self.task.value_type, key=key,
                                             value=random_value(self.task.value_type,
                                                                self._line_rng)))
        return self._lines[:n]


def insert_lines(lines: list[str], needles: list[str], rng: random.Random) -> str:
    """RULER's noise and needle haystacks: each needle at a distinct random line index
    (inserted from the highest index down), lines joined by newlines."""
    if not lines:  # a needle haystack of size 0 (below TINY): the needles alone
        return "\n".join(needles)
    lines = list(lines)
    for index, needle in zip(sorted(rng.sample(range(len(lines)), len(needles)), reverse=True),
                             needles):
        lines.insert(index, needle)
    return "\n".join(lines)


def essay_context(sentences: list[str], needles: list[str], rng: random.Random) -> str:
    """Needles at distinct random depths (of the 40), between sentences, in their order;
    everything joined by single spaces (an empty group leaves a double space, as in RULER)."""
    cuts = [0] + sorted(int(len(sentences) * depth / 100)
                        for depth in rng.sample(DEPTHS, len(needles))) + [len(sentences)]
    pieces = []
    for i in range(1, len(cuts)):
        pieces.append(" ".join(sentences[cuts[i - 1]:cuts[i]]))
        if i - 1 < len(needles):
            pieces.append(needles[i - 1])
    return " ".join(pieces)


# -- variable tracking ---------------------------------------------------------------------
HOPS = 4
VT_EXAMPLE_TOKENS = 500  # the one-shot example's budget (no generation)
VT_EXAMPLE_VALUE = "12345"


def variable_names(rng: random.Random, count: int, letters: int,
                   avoid: frozenset[str] = frozenset()) -> list[str]:
    """``count`` distinct names of random uppercase letters (never "VAR" nor ``avoid``:
    RULER can draw a name twice, or one that its own renaming then rewrites)."""
    names: list[str] = []
    while len(names) < count:
        name = "".join(rng.choices(string.ascii_uppercase, k=letters))
        if name not in names and name != "VAR" and name not in avoid:
            names.append(name)
    return names


def chain(names: list[str], value: str) -> list[str]:
    """``VAR A = 12345``, then ``VAR B = VAR A `` ... (RULER's trailing space kept)."""
    return [f"VAR {names[0]} = {value}"] + [f"VAR {names[j + 1]} = VAR {names[j]} "
                                            for j in range(len(names) - 1)]


def chain_context(statements: list[str], n: int, rng: random.Random) -> str:
    """n noise lines with the statements at sorted random positions, in chain order."""
    lines = [NOISE] * n
    for j, position in enumerate(sorted(rng.sample(range(n), len(statements)))):
        lines.insert(position + j, statements[j])
    return "\n".join(lines)


def vt_prompt(names: list[str], value: str, n: int, rng: random.Random) -> Prompt:
    fill = {"query": value, "num_v": len(names)}
    return Prompt(VT_TEMPLATE.format(context=chain_context(chain(names, value), n, rng), **fill),
                  VT_PREFIX.format(**fill), tuple(names))


class VtExampleMaker:
    """The one-shot example, sized once per run to at most 500 tokens: 3-letter names,
    the value 12345, RULER's noise increment of 5 lines."""

    minimum = 5

    def __init__(self):
        self.names = variable_names(random.Random("ruler/vt/example"), HOPS + 1, 3)

    def prompt(self, n: int) -> Prompt:
        return vt_prompt(self.names, VT_EXAMPLE_VALUE, n, sized_rng("ruler/vt/example", n))


def vt_example_text(example: Prompt) -> str:
    """The example as it is prepended: its prompt, the answer, a newline."""
    return example.text + " " + " ".join(example.outputs) + "\n"


def renamed_example(text: str, names: tuple[str, ...], rng: random.Random) -> str:
    """RULER's per-sample randomisation of the example: new 3-letter names, a new value."""
    for old, new in zip(names, variable_names(rng, len(names), 3, frozenset(names))):
        text = text.replace(old, new)
    return text.replace(VT_EXAMPLE_VALUE, str(rng.randrange(10_000, 99_999)))


class VtMaker:
    def __init__(self, task: Task, length: int, seed: str, example: tuple[str, tuple]):
        self.seed = seed
        self.minimum = increment(task, length)
        rng = random.Random(seed)
        self.names = variable_names(rng, HOPS + 1, 5)
        self.value = str(rng.randrange(10_000, 99_999))  # numpy's randint(10000, 99999)
        text, names = example
        self.example = renamed_example(text, names, rng) + "\n"

    def prompt(self, n: int) -> Prompt:
        main = vt_prompt(self.names, self.value, n, sized_rng(self.seed, n))
        return dataclasses.replace(main, input=self.example + main.input)


# -- common words extraction ---------------------------------------------------------------
COMMON = 10  # num_cw
REPEATS = {False: (30, 3), True: (6, 1)}  # (common, uncommon) repeats: L >= 4k, L < 4k
EXAMPLE = {False: (40, 10, 3), True: (20, 3, 1)}  # the one-shot: (words, common, uncommon)


def numbered(items: list[str]) -> str:
    return " ".join(f"{i + 1}. {word}" for i, word in enumerate(items))


def word_list(chosen: list[str], common: int, uncommon: int) -> str:
    """The first 10 words ``common`` times, the rest ``uncommon`` times, in a fixed order."""
    return numbered(fixed_shuffle(chosen[:COMMON] * common + chosen[COMMON:] * uncommon))


class CweMaker:
    def __init__(self, task: Task, length: int, seed: str):
        self.minimum = increment(task, length)
        self.small = length < SMALL
        self.seed = seed
        rng = random.Random(seed)
        vocabulary = words.cwe_vocabulary()
        self.words = rng.sample(vocabulary, len(vocabulary))  # its first n: a sample of n
        count, common, uncommon = EXAMPLE[self.small]
        shot = rng.sample(vocabulary, count)
        self.example = (CWE_TEMPLATE.format(context=word_list(shot, common, uncommon))
                        + CWE_PREFIX + " " + numbered(shot[:COMMON]))
        self._long: list[str] | None = None

    def chosen(self, n: int) -> list[str]:
        if n <= len(self.words):
            return self.words[:n]
        if self._long is None:  # RULER's english_words.json; here WordNet's lemmas
            long = words.cwe_long_vocabulary()
            self._long = random.Random(f"{self.seed}/long").sample(long, len(long))
        return self._long[:n]

    def prompt(self, n: int) -> Prompt:
        chosen = self.chosen(n)
        common, uncommon = REPEATS[self.small]
        main = CWE_TEMPLATE.format(context=word_list(chosen, common, uncommon))
        return Prompt(self.example + "\n" + main, CWE_PREFIX, tuple(chosen[:COMMON]))


# -- frequent words extraction -------------------------------------------------------------
ALPHA = 2.0
ZETA_ALPHA = math.pi ** 2 / 6  # zeta(2)
CODED_LETTERS = 6
FWE_NOISE = "..."  # rank 1 is noise


def fwe_counts(m: int, vocabulary: int) -> np.ndarray:
    """How often each rank occurs among m words: floor(m k^-alpha / zeta(alpha))."""
    ranks = np.arange(1, vocabulary + 1)
    return (m * (ranks ** -ALPHA) / ZETA_ALPHA).astype(int)


class FweMaker:
    # the smallest m with ranks 2-4 present and rank 4 above rank 5
    MIN_WORDS = 27

    def __init__(self, task: Task, length: int, seed: str):
        budget = length - task.tokens_to_generate
        self.minimum = max(increment(task, length), self.MIN_WORDS)
        rng = random.Random(seed)
        size = budget // 50
        coded = ["".join(rng.choices(string.ascii_lowercase, k=CODED_LETTERS))
                 for _ in range(size)]
        while len(set(coded)) < size:
            coded.append("".join(rng.choices(string.ascii_lowercase, k=CODED_LETTERS)))
        self.vocabulary = fixed_shuffle(sorted(set(coded)))
        self.vocabulary[0] = FWE_NOISE

    def prompt(self, m: int) -> Prompt:
        counts = fwe_counts(m, len(self.vocabulary))
        text = fixed_shuffle([w for w, c in zip(self.vocabulary, counts.tolist())
                              for _ in range(c)])
        return Prompt(FWE_TEMPLATE.format(context=" ".join(text)), FWE_PREFIX,
                      tuple(self.vocabulary[1:4]))


# -- QA ------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, eq=False)  # hashed by identity: one per file read
class QaData:
    """A QA file read as RULER reads it: the sorted unique documents and the questions."""

    documents: tuple[str, ...]
    questions: tuple[dict, ...]  # query, outputs, context (gold indices), more (same article)


class QaMaker:
    def __init__(self, task: Task, length: int, seed: str, data: QaData, index: int):
        self.minimum = increment(task, length)
        self.data = data
        question = data.questions[index]
        self.query, self.outputs = question["query"], tuple(question["outputs"])
        self.gold, more = list(question["context"]), list(question["more"])
        rng = random.Random(seed)
        self.more = rng.sample(more, len(more))  # its first k: a sample of k
        taken = set(self.gold) | set(more)
        self._rng, self._others = rng, None
        self._taken = taken

    def others(self) -> list[int]:
        """Every other document, in a random order (drawn once, when first needed)."""
        if self._others is None:
            pool = [i for i in range(len(self.data.documents)) if i not in self._taken]
            self._others = self._rng.sample(pool, len(pool))
        return self._others

    def documents(self, n: int) -> list[str]:
        docs = self.data.documents
        if n >= len(docs):  # RULER repeats the whole pool
            return list((docs * math.ceil(n / len(docs)))[:n])
        extra = n - len(self.gold)
        if extra > len(self.more):
            chosen = self.gold + self.more + self.others()[:extra - len(self.more)]
        else:
            chosen = self.gold + self.more[:max(0, extra)]
        return fixed_shuffle([docs[i] for i in chosen])

    def prompt(self, n: int) -> Prompt:
        context = "\n\n".join(QA_DOCUMENT.format(i=i + 1, document=document)
                              for i, document in enumerate(self.documents(n)))
        return Prompt(QA_TEMPLATE.format(context=context, query=self.query), QA_PREFIX,
                      self.outputs)


def maker(task: Task, length: int, seed: str, index: int, *,
          vt_example: tuple[str, tuple[str, ...]] | None = None, qa: QaData | None = None):
    """The maker of one sample (``vt_example``: the run's example, as text and names)."""
    if task.family == "niah":
        return NiahMaker(task, length, seed)
    if task.family == "vt":
        return VtMaker(task, length, seed, vt_example)
    if task.family == "cwe":
        return CweMaker(task, length, seed)
    if task.family == "fwe":
        return FweMaker(task, length, seed)
    if task.family == "qa":
        return QaMaker(task, length, seed, qa, index)
    raise ValueError(f"unknown task family {task.family!r}")
