"""The essay haystack: public-domain prose instead of Paul Graham's essays.

RULER concatenates 218 Paul Graham essays (copyrighted: they cannot be shipped), collapses
whitespace, splits on spaces into words, takes the first n words (repeating the list when n
is larger) and splits them into sentences with NLTK's Punkt. Here the essay is the prose of
NLTK's Gutenberg selection in its file order (Austen's three novels, Alice, Chesterton's
three, Moby Dick: about 1.2M o200k tokens; the poems, plays and the Bible are left out), and
sentences come from benchmarks/niah's splitter (Punkt's algorithm with a list of titles, since
the trained Punkt model is not in the shared data). Every RULER length up to 128k reads from
Emma alone. What it changes: 19th-century fiction instead of modern essays as the
distractor text, so essay-haystack scores are not the published ones (see the README).

The sentences of the first n words are the corpus' sentences up to word n, the last one cut
at n: splitting the prefix alone, as RULER does, differs from this at most in that last
sentence. Files are split one at a time, when a length first needs them.
"""

from __future__ import annotations

import bisect
import functools

import numpy as np

from benchmarks.texts import haystack

ESSAY_FILES = ("austen-emma.txt", "austen-persuasion.txt", "austen-sense.txt",
               "carroll-alice.txt", "chesterton-ball.txt", "chesterton-brown.txt",
               "chesterton-thursday.txt", "melville-moby_dick.txt")


@functools.lru_cache(maxsize=None)
def file_sentences(fileid: str) -> tuple[str, ...]:
    """One file's sentences, each on one line with single spaces."""
    return tuple(haystack.split_sentences(dict(haystack.corpus_texts())[fileid]))


@functools.lru_cache(maxsize=len(ESSAY_FILES))
def _essay(files: int) -> tuple[tuple[str, ...], np.ndarray]:
    """The sentences of the first ``files`` files, and the words up to each sentence's end."""
    sentences = tuple(s for fileid in ESSAY_FILES[:files] for s in file_sentences(fileid))
    ends = np.cumsum([len(sentence.split(" ")) for sentence in sentences], dtype=np.int64)
    return sentences, ends


def _covering(words: int) -> tuple[tuple[str, ...], np.ndarray]:
    for files in range(1, len(ESSAY_FILES) + 1):
        sentences, ends = _essay(files)
        if ends[-1] >= words:
            return sentences, ends
    return _essay(len(ESSAY_FILES))


def first_sentences(words: int) -> list[str]:
    """The sentences of the essay's first ``words`` words (the essay repeated when it is
    shorter), the last one cut at that word."""
    if words <= 0:
        return []
    sentences, ends = _covering(words)
    total = int(ends[-1])
    repeats, words = divmod(words, total)
    chosen = list(sentences) * repeats
    whole = bisect.bisect_right(ends, words)  # sentences ending at or before the cut
    chosen.extend(sentences[:whole])
    done = int(ends[whole - 1]) if whole else 0
    if words > done:
        chosen.append(" ".join(sentences[whole].split(" ")[:words - done]))
    return chosen
