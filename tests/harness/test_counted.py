"""Counts by composition equal counts of the whole text: after insertions, around a template,
at any prefix and at any token, in o200k and in another unit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fixtures.tokens.counted import SAFE_CUT, CountedText, safe_cut_after, safe_cut_before
from fixtures.tokens.tokenizer import make_unit, o200k

TEXT = ("It was the best of times, it was the worst of times; it was the age of wisdom. "
        "\"Is it?\" she asked.  Mr. Darcy (aged 28) paid £3.50 for 1,234 naïve cafés!\n\n"
        "A new paragraph begins here, and it runs on for a while without any end. ") * 12


def counted(text, tokenizer, every=5):
    cuts = np.array([m.start() for m in SAFE_CUT.finditer(text)][::every], dtype=np.int64)
    steps = tokenizer.count_pieces([text[a:b] for a, b in zip(cuts[:-1], cuts[1:])])
    return CountedText.assemble(text, cuts, np.array(steps, dtype=np.int64), tokenizer)


@pytest.fixture(params=["o200k", "hf"])
def unit(request, tmp_path):
    if request.param == "o200k":
        return o200k()
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    made = Tokenizer(models.BPE(unk_token="[UNK]"))
    made.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    made.train_from_iterator([TEXT], trainers.BpeTrainer(
        vocab_size=300, special_tokens=["[UNK]"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    made.save(str(tmp_path / "tokenizer.json"))
    return make_unit(f"hf:{tmp_path / 'tokenizer.json'}")


def test_safe_cuts_are_spaces_between_visible_characters():
    text = "a b  c\nd e"
    assert [m.start() for m in SAFE_CUT.finditer(text)] == [1, 8]
    assert safe_cut_before(text, 7) == 1 and safe_cut_after(text, 2) == 8
    assert safe_cut_before(text, 0) == 0 and safe_cut_after(text, 9) == len(text)


def test_composed_counts_equal_whole_counts(unit):
    rng = random.Random(7)
    base = counted(TEXT, unit)
    assert base.tokens == unit.count(TEXT)
    for _ in range(40):
        offsets = sorted(rng.sample(range(len(TEXT)), 3))
        edited = base.edit([(o, o, f" inserted words {i}. ") for i, o in enumerate(offsets)],
                           unit)
        assert edited.text == _insert(TEXT, offsets)
        assert edited.tokens == unit.count(edited.text)
        wrapped = edited.wrap("<doc>\n", "\n</doc> Question?", unit)
        assert wrapped.tokens == unit.count(wrapped.text)
        at = rng.randrange(len(edited.text) + 1)
        assert edited.prefix_tokens(at, unit) == unit.count(edited.text[:at])
        n = rng.randrange(edited.tokens)
        offset = edited.token_offset(n, unit)
        assert unit.count(edited.text[:offset]) <= n  # the first n tokens' text, no more
        if unit.is_default:  # exactly what decoding the first n tokens gives
            tokens = unit.encode(edited.text)
            assert offset == len(unit.decode(tokens[:n]).rstrip("\ufffd"))


def test_a_join_is_counted_across_the_seam(unit):
    left, right = counted(TEXT[:700], unit), counted(TEXT[700:1500], unit)
    joined = left.concat(right, unit)
    assert joined.text == TEXT[:1500] and joined.tokens == unit.count(TEXT[:1500])
    cut = int(joined.cut_chars[-1])
    assert joined.prefix_tokens(cut, unit) == unit.count(TEXT[:1500][:cut])


def _insert(text, offsets):
    for i, offset in sorted(enumerate(offsets), key=lambda item: -item[1]):
        text = text[:offset] + f" inserted words {i}. " + text[offset:]
    return text
