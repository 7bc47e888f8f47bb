"""contextrot's reading of a text: the same ten metrics, with the original's defects fixed.

Where it parts from Context-Tester's reading (``reading_context_tester``), and why:

- **markup** is removed by beautifulsoup4's ``html.parser`` with a space between elements
  (``<p>He said &amp; she said.</p>`` is 4 words), then the text is normalised as the input
  is (``text.normalise``: NFKC, straight quotes, paragraphs);
- **words** are runs of letters, digits and combining marks in any script, with inner
  apostrophes and hyphens (``don't``, ``twenty-one``) and inner ``.`` or ``,`` between
  digits (``3.50``), lower-cased; punctuation never sticks to a word (``sorts;`` is
  ``sorts``). ``Zoë sat in the café.`` is 5 words. Chinese and Japanese, written without
  spaces, count one word per character (kanji, kana);
- **familiar words** are the Dale-Chall list textstat ships (2,941 words), numbers, and the
  *regular inflections* of listed words, which Chall and Dale count as familiar: plurals and
  third persons (``pigeons``, ``boxes``, ``ladies``) of a listed noun or verb; past tenses
  and participles (``announced``, ``stopped``, ``carried``, ``making``, ``running``) of a
  listed verb; comparatives and superlatives (``nicer``, ``taller``, ``bigger``,
  ``happiest``) of a listed adjective or adverb. WordNet (the registered
  ``nltk_data/corpora/wordnet.zip``) says which listed words are nouns, verbs, adjectives
  or adverbs, so ``printer``, ``waiter``, ``manner`` and ``digest`` are not inflections of
  ``print``, ``wait``, ``man`` and ``dig``. Possessives (``father's``, ``boys'``) read as
  their word; a hyphenated compound is familiar when listed or when every part is.
  Derivations (``softly``, ``movement``) and irregular forms (``went``) count only when
  listed; proper names are unfamiliar;
- **sentences** end at ``. ! ? …`` (with closing quotes or brackets) before a space or the
  end, at ``。！？``, and at paragraph breaks. A ``.`` after a title (``Mr.``, ``Dr.``,
  ``St.``) or an initial (``J. Smith``, not ``I``) ends nothing; ``no.`` ends a sentence
  unless a number follows (``No. 5``): ``I said no. He left.`` is two sentences;
- **unrounded** values; where a text is too short for a metric it has none (``None``),
  never a made-up 0: no words, no metric at all (``word_count`` 0); under 2 sentences, no
  variance; under 2 words, no bigram rate; under 100 words, no 100-word window.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib.util
import zipfile
from pathlib import Path

import regex

from fixtures.data.registry import data_file

from . import readability
from . import text as texts

WORDNET = "nltk_data/corpora/wordnet.zip"
_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}"
_LETTER = rf"[[\p{{L}}\p{{N}}]--[{_CJK}]]"
_PART = rf"{_LETTER}[{_LETTER}\p{{M}}]*"
WORD = regex.compile(rf"\p{{N}}+(?:[.,]\p{{N}}+)+|[{_CJK}]|{_PART}(?:['\-]{_PART})*",
                     regex.VERSION1)
_CLOSERS = "\"')\\]»」』）"
SENTENCE_END = regex.compile(rf"[.!?…]+[{_CLOSERS}]*(?=\s|\Z)|[。！？]+[{_CLOSERS}]*")
_WORD_BEFORE = regex.compile(r"(\p{L}+)\Z")
_NUMBER_AFTER = regex.compile(r"\s*\p{N}")
TITLES = texts.ABBREVIATIONS - {"no"}
NUMERO = "no"  # an abbreviation only before a number
UNDEFINED = {name: None for name in readability.METRICS} | {"word_count": 0,
                                                            "sentence_count": 0}


# -- sentences and words -------------------------------------------------------------------
def sentences(text: str):
    """The normalised text's sentences (see the module docstring), in order."""
    for paragraph in text.split("\n\n"):
        start = 0
        for end in SENTENCE_END.finditer(paragraph):
            if end.group() == "." and _abbreviation(paragraph, end.start(), end.end()):
                continue
            yield paragraph[start:end.end()]
            start = end.end()
        yield paragraph[start:]


def _abbreviation(paragraph: str, dot: int, after: int) -> bool:
    before = _WORD_BEFORE.search(paragraph, max(dot - 16, 0), dot)
    if before is None:
        return False
    word = before.group(1)
    if word.lower() == NUMERO:
        return _NUMBER_AFTER.match(paragraph, after) is not None
    return word.lower() in TITLES or (len(word) == 1 and word.isupper() and word != "I")


def sentence_words(text: str) -> list[list[str]]:
    """Each sentence's words, lower-cased; sentences without a word left out."""
    # html.parser drops an unfinished "&name" at the very end of its input ("AT&T" reads
    # "ATT"); a final newline, which normalisation removes, keeps it.
    plain = texts.normalise(readability.plain_text(text + "\n", " "))
    found = (WORD.findall(sentence.lower()) for sentence in sentences(plain))
    return [words for words in found if words]


def words(text: str) -> list[str]:
    return [word for sentence in sentence_words(text) for word in sentence]


# -- familiar words ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Lexicon:
    """The listed words, and which of them WordNet knows as each part of speech."""
    easy: frozenset[str]
    nouns_and_verbs: frozenset[str]  # take -s and -es
    verbs: frozenset[str]  # take -ed and -ing
    comparables: frozenset[str]  # adjectives and adverbs: take -er and -est


def textstat_easy_words() -> list[str]:
    """The lines of textstat's English Dale-Chall list, read from its package folder: importing
    textstat loads the CMU pronouncing dictionary (a second of CPU) that is not needed here."""
    package = importlib.util.find_spec("textstat")
    if package is None or package.origin is None:
        raise ModuleNotFoundError("textstat is not installed: pip install -e . installs it")
    path = Path(package.origin).parent / "resources" / "en" / "easy_words.txt"
    return path.read_text(encoding="utf-8").splitlines()


@functools.lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    easy = frozenset(word.strip().lower().rstrip(".") for word in textstat_easy_words()
                     if word.strip())
    with zipfile.ZipFile(data_file(WORDNET)) as wordnet:
        def listed(pos: str) -> frozenset[str]:
            index = wordnet.read(f"wordnet/index.{pos}").decode("utf-8").splitlines()
            return easy & {line.split(" ", 1)[0] for line in index
                           if line and not line.startswith(" ")}
        nouns, verbs = listed("noun"), listed("verb")
        comparables = listed("adj") | listed("adv")
    return Lexicon(easy, nouns | verbs, verbs, comparables)


# (ending, what the stem gets back, the part of speech it must have, the shortest stem)
INFLECTIONS = (
    ("ies", "y", "nouns_and_verbs", 2), ("es", "", "nouns_and_verbs", 2),
    ("s", "", "nouns_and_verbs", 2),
    ("ied", "y", "verbs", 2), ("ed", "", "verbs", 3), ("ed", "e", "verbs", 2),
    ("ing", "", "verbs", 3), ("ing", "e", "verbs", 2),
    ("ier", "y", "comparables", 2), ("iest", "y", "comparables", 2),
    ("er", "", "comparables", 3), ("er", "e", "comparables", 2),
    ("est", "", "comparables", 3), ("est", "e", "comparables", 2),
)
DOUBLING = ("ed", "ing", "er", "est")  # stop -> stopped, big -> bigger
VOWELS = "aeiouy"


def inflection_stems(word: str, lexicon_: Lexicon) -> set[str]:
    """The listed words of which ``word`` is a regular inflection."""
    found = set()
    for ending, restored, pos, shortest in INFLECTIONS:
        if not word.endswith(ending) or (ending == "s" and word.endswith("ss")):
            continue
        stem = word[:-len(ending)]
        if len(stem) < shortest:
            continue
        stems = [stem + restored]
        if not restored and ending in DOUBLING and len(stem) >= 3 and stem[-1] == stem[-2] \
                and stem[-1] not in VOWELS:
            stems.append(stem[:-1])
        found.update(s for s in stems if s in getattr(lexicon_, pos))
    return found


@functools.lru_cache(maxsize=1 << 16)
def is_familiar(word: str) -> bool:
    words = lexicon()
    word = word.lower()
    if word in words.easy or any(c.isdigit() for c in word):
        return True
    if word.endswith("'s"):
        return is_familiar(word[:-2])
    if word.endswith("s'"):
        return is_familiar(word[:-1])
    if "-" in word:
        return all(is_familiar(part) for part in word.split("-") if part)
    return bool(inflection_stems(word, words))


# -- the metrics ---------------------------------------------------------------------------
def metrics(text: str) -> dict:
    """contextrot's ten values for one text; without a word, only the counts (0)."""
    lengths_and_words = sentence_words(text)
    tokens = [word for sentence in lengths_and_words for word in sentence]
    n = len(tokens)
    if not n:
        return dict(UNDEFINED)
    counts = collections.Counter(tokens)
    unfamiliar = sum(times for word, times in counts.items() if not is_familiar(word)) / n
    lengths = [len(sentence) for sentence in lengths_and_words]
    average = n / len(lengths)
    cloze = readability.cloze_score(unfamiliar, average)
    window = readability.MOVING_WINDOW
    return {
        "pct_unfamiliar_words": unfamiliar,
        "avg_sentence_length": average,
        "cloze_score": cloze,
        "reading_level": readability.reading_level(cloze),
        "word_count": n,
        "sentence_count": len(lengths),
        "sentence_length_variance": readability.sample_variance(lengths)
        if len(lengths) > 1 else None,
        "vocabulary_diversity": len(counts) / n,
        "bigram_repetition_rate": readability.repetition_rate(tokens) if n > 1 else None,
        "unique_word_ratio_100": readability.mean_window_uniqueness(tokens, window)
        if n >= window else None,
    }
