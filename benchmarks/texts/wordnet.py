"""WordNet's vocabulary, read through the data registry's NLTK data."""

from __future__ import annotations

import functools

from fixtures.data.registry import use_nltk_data


@functools.lru_cache(maxsize=None)
def wordnet_vocabulary() -> tuple[str, ...]:
    """WordNet's alphabetic lemma names, lower-cased, de-duplicated and sorted.

    Sorted, so that a seeded sample is the same on every machine (77,503 words for 3.0).
    """
    use_nltk_data()
    from nltk.corpus import wordnet

    return tuple(sorted({word.lower() for word in wordnet.words() if word.isalpha()}))
