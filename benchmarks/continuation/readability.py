"""What both readings of a text share: the metric names, the cloze formula, the grade table,
markup removal and the counts over a word list.

Both metric sets (``reading_context_tester``, ``reading_contextrot``) give the same ten
metrics under the same names, so a curve, a table or a gate reads either set alike.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

# The two readings (metric sets) of a text, by option value: see scoring.py.
METRIC_SETS = {"context-tester": "Context-Tester's reading", "contextrot": "contextrot's reading"}
DEFAULT_SET = "context-tester"  # the original's values: curves compare with published ones


def set_field(metric_set: str) -> str:
    """The set's field name in a record: ``context-tester`` -> ``context_tester``."""
    return metric_set.replace("-", "_")


# The ten metrics of a text, in the original's order and under its names.
METRICS = ("pct_unfamiliar_words", "avg_sentence_length", "cloze_score", "reading_level",
           "word_count", "sentence_count", "sentence_length_variance",
           "vocabulary_diversity", "bigram_repetition_rate", "unique_word_ratio_100")
NUMERIC_METRICS = tuple(m for m in METRICS if m != "reading_level")
MOVING_WINDOW = 100  # words per window of unique_word_ratio_100

# Chall and Dale (1995), table 5-8: the lowest (ceiled) cloze score of each grade level.
GRADE_FLOORS = ((58, "1"), (54, "2"), (50, "3"), (45, "4"), (40, "5-6"), (34, "7-8"),
                (28, "9-10"), (22, "11-12"), (16, "13-15"), (10, "16+"))
CLOZE_RANGE = (10, 64)  # the table's span: scores outside it take its end grades


def cloze_score(pct_unfamiliar: float, avg_sentence_length: float) -> float:
    """Chall and Dale (1995, p. 66), the percentage given as a fraction (0-1), as the
    original does. Higher means easier text."""
    return 64 - 95 * pct_unfamiliar - 0.69 * avg_sentence_length


def reading_level(cloze: float) -> str:
    """The estimated grade level of a cloze score (``"9-10"``; ``"16+"`` is college)."""
    low, high = CLOZE_RANGE
    score = math.ceil(min(max(cloze, low), high))
    return next(level for floor, level in GRADE_FLOORS if score >= floor)


def plain_text(text: str, separator: str = "") -> str:
    """The text with HTML markup removed and entities decoded by beautifulsoup4's
    ``html.parser`` (the original's parser); ``separator`` goes between the strings of
    different elements. Text without ``<`` or ``&`` has no markup: it is returned as is
    (the parser would return it unchanged), so prose costs no parse."""
    if "<" not in text and "&" not in text:
        return text
    from bs4 import BeautifulSoup

    # Given as a file, the markup skips bs4's "looks like a file name or URL" warning.
    return BeautifulSoup(io.StringIO(text), "html.parser").get_text(separator)


def sample_variance(values: list[int]) -> float:
    """``statistics.variance`` of integers, to the same last bit, in integer arithmetic."""
    n = len(values)
    total = sum(values)
    return (n * sum(v * v for v in values) - total * total) / (n * (n - 1))


def repetition_rate(words: list[str]) -> float:
    """Repeated bigrams: (bigrams - distinct bigrams) / bigrams; ``words`` has 2 or more."""
    bigrams = len(words) - 1
    return (bigrams - len(set(zip(words, words[1:])))) / bigrams


def mean_window_uniqueness(words: list[str], window: int) -> float:
    """The mean of distinct/window over every stride-1 window (``len(words) >= window``).

    One pass with running counts. The mean is exact over the per-window float ratios, as
    ``statistics.mean`` computes it, so both readings round it as the original does.
    """
    counts: dict[str, int] = {}
    for word in words[:window]:
        counts[word] = counts.get(word, 0) + 1
    distinct = len(counts)
    windows_with = [0] * (window + 1)  # distinct-word count -> windows that have it
    windows_with[distinct] = 1
    for entering, leaving in zip(words[window:], words):
        before = counts.get(entering, 0)
        counts[entering] = before + 1
        after = counts[leaving] - 1
        counts[leaving] = after
        distinct += (not before) - (not after)
        windows_with[distinct] += 1
    total = sum(Fraction(distinct / window) * times
                for distinct, times in enumerate(windows_with) if times)
    return float(total / (len(words) - window + 1))
