"""Context-Tester's reading of a text: its ten values, exactly as its own code gives them.

The original is ``src/readability_tests.py`` of jabberjabberjabber/Context-Tester @
784bf39118ba (``../shared/specs/originals.md`` section 4.3); a test reproduces its values on
25 reference passages. Everything below is its rule, defects included, so that curves sit
beside the ones its users publish:

- **words**: the text without markup (beautifulsoup4's ``html.parser``, strings joined with
  nothing), split on whitespace, lower-cased, with ``. ( ) , " '`` stripped from both ends.
  Other punctuation stays (``sorts;`` and ``“well`` are words), and a token of nothing but
  those characters (``...``) is an empty word that still counts;
- **unfamiliar**: a word, with every ``'s`` and ``s'`` removed, that is neither all digits
  nor on its list (``context_tester/easy_words.txt``, 3,172 lines, lower-cased). Inflections
  (``pigeons``, ``laughing``) are unfamiliar unless listed;
- **sentences**: maximal runs of characters other than ``. ! ?`` that start at a word
  boundary, with the ``. ! ?`` after them, in the raw text (markup included). ``Mr. Smith``
  is two sentences; ``3.50`` ends one;
- **cloze**: 64 - 95 x unfamiliar share - 0.69 x words per sentence, rounded to 2 places;
  the grade level from it (``readability.reading_level``);
- **sentence length variance**: sample variance of each sentence's whitespace-separated
  tokens, 0.0 under 2 sentences;
- **repetition** (bigram rate, unique words per 100-word window, the window shrunk to the
  text): 0.0 under 3 words;
- **rounding**: the unfamiliar share, diversity and repetition to 4 places, the sentence
  length and its variance to 2;
- **empty text** (nothing but whitespace): cloze 64.0, level ``"1"``, every other value 0.
"""

from __future__ import annotations

import collections
import functools
import re

from fixtures.data.registry import data_file

from . import readability

WORD_LIST = "context_tester/easy_words.txt"
STRIPPED = ".(),\"'"
SENTENCE = re.compile(r"\b[^.!?]+[.!?]*")
EMPTY = {"pct_unfamiliar_words": 0.0, "avg_sentence_length": 0.0, "cloze_score": 64.0,
         "reading_level": "1", "word_count": 0, "sentence_count": 0,
         "sentence_length_variance": 0.0, "vocabulary_diversity": 0.0,
         "bigram_repetition_rate": 0.0, "unique_word_ratio_100": 0.0}


@functools.lru_cache(maxsize=1)
def easy_words() -> frozenset[str]:
    lines = data_file(WORD_LIST).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip())


def words(text: str) -> list[str]:
    # Lower-casing the whole text equals lower-casing each token: no case mapping crosses
    # whitespace (Greek final sigma looks no further than the token either way).
    return [token.strip(STRIPPED) for token in readability.plain_text(text).lower().split()]


def is_unfamiliar(word: str, easy: frozenset[str]) -> bool:
    if "'" in word:
        word = word.replace("'s", "").replace("s'", "")
    return not word.isdigit() and word not in easy


def sentence_lengths(text: str) -> list[int]:
    """Whitespace-separated tokens of each sentence (markup included, as the original)."""
    return [len(sentence.split())
            for sentence in SENTENCE.findall(text.replace("\n", " ").strip())]


def metrics(text: str) -> dict:
    """The original's ten values for one text."""
    if not text.strip():
        return dict(EMPTY)
    tokens = words(text)
    lengths = sentence_lengths(text)
    n, sentences = len(tokens), len(lengths)
    easy = easy_words()
    counts = collections.Counter(tokens)  # each distinct word is looked up once
    unfamiliar = sum(times for word, times in counts.items()
                     if is_unfamiliar(word, easy)) / n if n else 0.0
    average = n / sentences if sentences else 0.0
    cloze = round(readability.cloze_score(unfamiliar, average), 2)
    repetition = n >= 3
    return {
        "pct_unfamiliar_words": round(unfamiliar, 4),
        "avg_sentence_length": round(average, 2),
        "cloze_score": cloze,
        "reading_level": readability.reading_level(cloze),
        "word_count": n,
        "sentence_count": sentences,
        "sentence_length_variance": round(readability.sample_variance(lengths), 2)
        if sentences >= 2 else 0.0,
        "vocabulary_diversity": round(len(counts) / n, 4) if n else 0.0,
        "bigram_repetition_rate": round(readability.repetition_rate(tokens), 4)
        if repetition else 0.0,
        "unique_word_ratio_100": round(readability.mean_window_uniqueness(
            tokens, min(readability.MOVING_WINDOW, n)), 4) if repetition else 0.0,
    }
