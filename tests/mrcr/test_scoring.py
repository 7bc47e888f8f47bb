"""The original's grader on hand-made replies, the copied-needle diagnostic, Context Arena's
AUC against the published table, and the declared chance level."""

from __future__ import annotations

import difflib
import json
import statistics

import pandas as pd
import pytest

from benchmarks.mrcr import EXPERIMENT, published, scoring
from benchmarks.mrcr.generate import Row

PREFIX = "mWEa9DrPT3"
AUSTEN = ("It is a truth universally acknowledged, that a single man in possession of a good "
          "fortune, must be in want of a wife. However little known the feelings or views of "
          "such a man may be on his first entering a neighbourhood, this truth is so well fixed "
          "in the minds of the surrounding families, that he is considered the rightful "
          "property of some one or other of their daughters.")
GENESIS = ("In the beginning God created the heaven and the earth. And the earth was without "
           "form, and void; and darkness was upon the face of the deep. And the Spirit of God "
           "moved upon the face of the waters. And God said, Let there be light: and there was "
           "light. And God saw the light, that it was good: and God divided the light from the "
           "darkness.")


def test_a_reply_without_the_string_or_with_anything_before_it_scores_0():
    answer = PREFIX + AUSTEN
    assert scoring.grade(AUSTEN, answer, PREFIX) == 0.0
    assert scoring.grade(" " + answer, answer, PREFIX) == 0.0
    assert scoring.grade("\n" + answer, answer, PREFIX) == 0.0
    assert scoring.grade(PREFIX.lower() + AUSTEN, answer, PREFIX) == 0.0


def test_the_exact_reply_scores_1_and_a_truncated_one_2m_over_the_lengths():
    answer = PREFIX + AUSTEN
    assert scoring.grade(answer, answer, PREFIX) == 1.0
    cut = PREFIX + AUSTEN[:int(len(AUSTEN) * 0.8)]
    assert scoring.grade(cut, answer, PREFIX) == pytest.approx(0.8889, abs=1e-3)  # the spec's
    assert scoring.grade(PREFIX, answer, PREFIX) == 0.0  # the string alone: nothing copied


def test_autojunk_is_on_an_unrelated_passage_scores_about_001_not_022():
    """Characters more common than 1% of a 200+ character answer cannot seed a match."""
    answer = PREFIX + AUSTEN
    score = scoring.grade(PREFIX + GENESIS, answer, PREFIX)
    assert score == difflib.SequenceMatcher(None, GENESIS, AUSTEN).ratio()
    assert score == pytest.approx(0.0168, abs=1e-3)
    without = difflib.SequenceMatcher(None, GENESIS, AUSTEN, autojunk=False).ratio()
    assert without == pytest.approx(0.2216, abs=1e-3)


def test_the_reply_is_the_first_argument_on_repetitive_text_order_matters():
    """A one-word edit of a 200-character refrain: 0.70 reply first (the original), 0.98 the
    other way round (the answer, under 200 characters, escapes autojunk)."""
    refrain = "apple pie " * 20
    words = refrain.split()
    words[28] = "yak"
    reply = " ".join(words) + " "
    score = scoring.grade(PREFIX + reply, PREFIX + refrain, PREFIX)
    assert score == pytest.approx(0.7035, abs=1e-3)
    assert difflib.SequenceMatcher(None, refrain, reply).ratio() == pytest.approx(0.985, abs=1e-3)
    assert difflib.SequenceMatcher(None, reply, refrain, autojunk=False).ratio() == \
        pytest.approx(0.985, abs=1e-3)


def test_the_prefix_is_removed_once_from_both_sides():
    doubled = PREFIX + PREFIX + AUSTEN  # the answer itself starts with the string
    assert scoring.grade(doubled, doubled, PREFIX) == 1.0
    assert scoring.grade(PREFIX + AUSTEN, doubled, PREFIX) < 1.0


def conversation(needles: list[str], asked: int) -> Row:
    messages = [{"role": "user", "content": "preamble"}]
    for i, text in enumerate(needles):
        messages += [{"role": "user", "content": "write a poem about horses"},
                     {"role": "assistant", "content": text},
                     {"role": "user", "content": "write a poem about ships"},
                     {"role": "assistant", "content": f"distractor {i}"}]
    messages.append({"role": "user", "content": "Prepend ..."})
    index = 1 + 4 * (asked - 1)
    return Row(json.dumps(messages), PREFIX + needles[asked - 1], PREFIX, len(needles), index,
               len(messages), 0)


@pytest.mark.parametrize("reply, ratio, copied, occurrence", [
    (PREFIX + GENESIS, 1.0, "asked", 2),
    (PREFIX + AUSTEN, None, "other", 1),
    (PREFIX + "Nothing like either of them, written from scratch.", None, "none", None),
    (GENESIS, 0.0, "no prefix", None),
])
def test_the_diagnostic_says_which_occurrence_was_copied(reply, ratio, copied, occurrence):
    row = conversation([AUSTEN, GENESIS], asked=2)
    result = scoring.score(row, reply)
    assert result["details"]["copied"] == copied
    assert result["details"]["copied_occurrence"] == occurrence
    assert result["details"]["asked_occurrence"] == 2
    assert result["scores"]["ratio"] == scoring.grade(reply, row.answer, PREFIX)
    if ratio is not None:
        assert result["scores"]["ratio"] == ratio
    assert result["scores"]["prefixed"] == reply.startswith(PREFIX)


# Context Arena's snapshot (spec section 4), as the report and leaderboard show it: per-bin
# percent, then AUC@128k and AUC@1M.
ARENA = published.ROWS


@pytest.mark.parametrize("model", sorted(ARENA))
def test_context_arena_auc_reproduces_the_published_table(model):
    per_bin, auc_128k, auc_1m = ARENA[model]
    means = dict(zip(scoring.ARENA_BINS, per_bin))
    assert scoring.arena_auc(means, 128) == pytest.approx(auc_128k, abs=0.1)
    assert scoring.arena_auc(means, 1024) == pytest.approx(auc_1m, abs=0.1)


def test_an_auc_needs_every_bin_of_its_range():
    means = {8: 1.0, 16: 1.0, 32: 1.0, 64: 1.0}
    assert scoring.arena_auc(means, 128) is None
    assert scoring.arena_auc({**means, 128: 0.5}, 128) == pytest.approx(
        (8 * 1 + 16 * 1 + 32 * 1 + 64 * 0.75) / 120)


def frame_of(scores: dict[int, list[float]], needles: int = 2, test_bins=()) -> pd.DataFrame:
    rows = [{"experiment": "mrcr", "outcome": "ok", "params.source": "generated",
             "params.needles": needles, "params.bin_high": high << 10,
             "params.test_bin": high in test_bins, "scores.ratio": value}
            for high, values in scores.items() for value in values]
    return pd.DataFrame(rows)


def test_findings_give_both_aucs_with_intervals_and_leave_test_bins_out():
    scores = {x: [0.9, 1.0, 0.8] for x in scoring.ARENA_BINS[:5]}
    scores[4] = [0.0]  # a test-only bin: not Context Arena's
    found = scoring.findings(frame_of(scores, test_bins={4}))
    row = found["context_arena"][0]
    assert row["auc_128k"]["value"] == pytest.approx(0.9)
    assert row["auc_128k"]["low"] <= 0.9 <= row["auc_128k"]["high"]
    assert row["auc_1m"] is None and "4" not in row["bins"]
    assert found["lines"] == ["Context Arena (linear axis), generated, 2 needles: AUC@128k "
                              f"0.900 [{row['auc_128k']['low']:.3f}, "
                              f"{row['auc_128k']['high']:.3f}]; AUC@1M needs every bin from 8k "
                              "to 1M (n=15)"]


def test_chance_is_what_the_string_and_an_unrelated_turn_score(generated_rows):
    """The declared chance level: the string followed by another assistant turn of the same
    conversation (right format, wrong passage), averaged over generated samples."""
    values = []
    for row in generated_rows:
        messages = row.messages()
        needles = set(scoring.needles(messages, row.desired_msg_index))
        others = [m["content"] for m in messages[1:-1]
                  if m["role"] == "assistant" and m["content"] not in needles]
        values += [scoring.grade(row.random_string_to_prepend + text, row.answer,
                                 row.random_string_to_prepend) for text in others[:3]]
    assert statistics.mean(values) == pytest.approx(EXPERIMENT.chance, abs=0.015)
    assert 0 < statistics.mean(values) <= EXPERIMENT.chance + 0.01
