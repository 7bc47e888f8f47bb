"""Readability metrics of one text: pure functions, the same for continuations and the truth.

Words are runs of letters or digits, with inner apostrophes and hyphens (``don't``,
``twenty-one``), lower-cased: punctuation and quotes never stick to a word (the original
counted ``sorts;`` and ``"well`` as unfamiliar). Sentences end at . ! ? and paragraph breaks
(``text.sentences``).

**Familiar words (the New Dale-Chall rule).** A word is familiar when it is on the Dale-Chall
list of about 3,000 easy words (the copy textstat ships), when it is a number, or when it is a
*regular inflection* of a listed word, which Chall and Dale count as familiar:

- plurals and third persons: ``-s``, ``-es``, ``-ies`` (``pigeons``, ``boxes``, ``babies``);
- possessives: ``'s``, ``s'`` (``father's``, ``boys'``);
- past tenses: ``-d``, ``-ed``, ``-ied``, a doubled consonant + ``-ed`` (``announced``,
  ``jumped``, ``carried``, ``stopped``);
- present participles: ``-ing``, ``e`` dropped + ``-ing``, doubled consonant + ``-ing``
  (``laughing``, ``making``, ``running``);
- comparatives and superlatives: ``-r``, ``-er``, ``-st``, ``-est``, ``-ier``, ``-iest``,
  doubled consonant + ``-er``/``-est`` (``nicer``, ``taller``, ``happiest``, ``bigger``).

Derivations (``-ly``, ``-ness``, ``-ment``, ``-ful``...) are not inflections: such a word is
familiar only when listed. A hyphenated compound is familiar when listed whole or when every
part is familiar. Irregular forms (``went``, ``children``) count only when listed, and proper
names are not detected (they are unfamiliar, in the continuation and in the truth alike). The
list's ``mr.``/``mrs.`` are matched without their period. A stem must keep 3 letters (2 for
``-s``/``-es``: ``goes``, ``does``), so ``bed`` is not ``be`` + ``d``.

**Cloze score** (Chall and Dale 1995, p. 66, as in the original):
``64 - 95 x pct_unfamiliar_words - 0.69 x avg_sentence_length``, the percentage as a fraction
(0-1). Higher means easier text.
"""

from __future__ import annotations

import collections
import functools
import re
import statistics

from . import text as texts

WORD = re.compile(r"[A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*")
MOVING_WINDOW = 100  # words per window of the moving type/token ratio
METRICS = ("cloze_score", "pct_unfamiliar_words", "vocabulary_diversity", "moving_ttr_100",
           "avg_sentence_length", "sentence_length_variance", "bigram_repetition", "words",
           "sentences")


@functools.lru_cache(maxsize=1)
def easy_words() -> frozenset[str]:
    """textstat's Dale-Chall easy-word list, lower-cased, trailing periods removed."""
    from textstat.backend.utils import get_lang_easy_words

    return frozenset(word.strip().lower().rstrip(".") for word in get_lang_easy_words("en")
                     if word.strip())


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(texts.normalise(text))]


def inflection_stems(word: str) -> set[str]:
    """Every stem of which ``word`` may be a regular inflection (see the module docstring)."""
    stems: set[str] = set()

    def add(stem: str, minimum: int = 3) -> None:
        if len(stem) >= minimum:
            stems.add(stem)

    doubled = len(word) > 4
    for ending in ("s", "es"):
        if word.endswith(ending) and not word.endswith("ss"):
            add(word[:-len(ending)], 2)
    if word.endswith("ies"):
        add(word[:-3] + "y")
    for ending in ("d", "ed", "r", "er", "st", "est", "ing"):
        if word.endswith(ending):
            stem = word[:-len(ending)]
            add(stem)
            if ending == "ing":
                add(stem + "e")
            if ending in ("ed", "er", "est", "ing") and doubled and len(stem) >= 2 \
                    and stem[-1] == stem[-2] and stem[-1] not in "aeiouy":
                add(stem[:-1])
    for ending in ("ied", "ier", "iest"):
        if word.endswith(ending):
            add(word[:-len(ending)] + "y")
    return stems


def is_familiar(word: str, easy: frozenset[str] | None = None) -> bool:
    easy = easy_words() if easy is None else easy
    word = word.lower()
    if word in easy or any(c.isdigit() for c in word):
        return True
    if word.endswith("'s"):
        return is_familiar(word[:-2], easy)
    if word.endswith("s'"):
        return is_familiar(word[:-1], easy)
    if "-" in word:
        return all(is_familiar(part, easy) for part in word.split("-") if part)
    return any(stem in easy for stem in inflection_stems(word))


def sentence_lengths(text: str) -> list[int]:
    """Words per sentence, sentences without a word left out."""
    lengths = [len(words(sentence)) for sentence in texts.sentences(texts.normalise(text))]
    return [n for n in lengths if n]


def moving_ttr(tokens: list[str], window: int = MOVING_WINDOW) -> float | None:
    """Mean unique/window over every stride-1 window; length-robust, unlike plain TTR."""
    if len(tokens) < window:
        return None
    counts = collections.Counter(tokens[:window])
    total = len(counts)
    for i in range(window, len(tokens)):
        counts[tokens[i]] += 1
        gone = tokens[i - window]
        counts[gone] -= 1
        if counts[gone] == 0:
            del counts[gone]
        total += len(counts)
    return total / (len(tokens) - window + 1) / window


def cloze_score(pct_unfamiliar: float, avg_sentence_length: float) -> float:
    return 64 - 95 * pct_unfamiliar - 0.69 * avg_sentence_length


def metrics(text: str) -> dict:
    """Every metric of one text; None where a text is too short to define it."""
    tokens = words(text)
    lengths = sentence_lengths(text)
    n = len(tokens)
    if n == 0:
        return {name: (0 if name in ("words", "sentences") else None) for name in METRICS}
    unfamiliar = sum(1 for w in tokens if not is_familiar(w)) / n
    average = n / max(len(lengths), 1)
    bigrams = list(zip(tokens, tokens[1:]))
    return {
        "cloze_score": cloze_score(unfamiliar, average),
        "pct_unfamiliar_words": unfamiliar,
        "vocabulary_diversity": len(set(tokens)) / n,
        "moving_ttr_100": moving_ttr(tokens),
        "avg_sentence_length": average,
        "sentence_length_variance": statistics.variance(lengths) if len(lengths) > 1 else None,
        "bigram_repetition": (len(bigrams) - len(set(bigrams))) / len(bigrams) if bigrams
        else None,
        "words": n,
        "sentences": len(lengths),
    }
