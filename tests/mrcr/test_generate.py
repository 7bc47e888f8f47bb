"""The offline generator: determinism, the original's schema invariants on every sample, and
what the build promises (uniform needles and occurrences, near misses, honest topics)."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats

from benchmarks.mrcr import generate, grid, passages, topics
from benchmarks.mrcr.generate import EXAMPLE_END, EXAMPLE_START, OPENING, ordinal
from fixtures.tokens.tokenizer import o200k

from .conftest import CASES, build

ROOT = Path(__file__).resolve().parents[2]
# sha256 of the JSON of the 22 rows of `--scale test --mrcr-needles 2,4,8 --mrcr-samples 2`
# (seed 0): the generator's output, pinned. A change to the pool or the build changes it on
# purpose: update it, and say in the commit that the stimuli changed.
TEST_GRID_SHA256 = "b8901063f14d8cedc1d08ea373e22a8f02ca29771b8ebe424cf4c1be59e77ebe"
TEST_GRID = """
import hashlib, json
from benchmarks.mrcr import grid, stimulus
options = {"scale": "test", "mrcr_needles": ["2,4,8"], "mrcr_samples": 2,
           "mrcr_source": "generated", "mrcr_seed": 0, "mrcr_merge_user_messages": False,
           "model": "m"}
settings = grid.settings(lambda name: options.get(name))
rows = [stimulus.prepare(s, None).row.to_dict() for s in grid.build(settings)]
print(len(rows), hashlib.sha256(json.dumps(rows).encode()).hexdigest())
"""


def test_the_same_seed_builds_byte_identical_rows_and_another_seed_another_row():
    b = grid.BINS[0]
    first, again = build(4, b, 3), build(4, b, 3)
    assert json.dumps(first.row.to_dict()) == json.dumps(again.row.to_dict())
    assert first.size == again.size and first.details == again.details
    assert build(4, b, 3, seed=1).row != first.row and build(4, b, 4).row != first.row


def test_the_test_grid_is_the_same_in_any_process_and_on_any_machine():
    """Another interpreter with another hash seed builds the pinned bytes."""
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", TEST_GRID], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["22", TEST_GRID_SHA256]


def requests_of(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages[1:-1] if m["role"] == "user"]


@pytest.mark.parametrize("case", range(sum(count for _, _, count in CASES)))
def test_every_sample_satisfies_the_originals_invariants(built_samples, case):
    needles, bin, built = built_samples[case]
    row = built.row
    messages = json.loads(row.prompt)
    # roles: the preamble, strictly alternating request/writing pairs, the final question
    assert [m["role"] for m in messages] == \
        ["user"] + ["user", "assistant"] * ((len(messages) - 2) // 2) + ["user"]
    assert row.total_messages == len(messages) and row.n_needles == needles
    # what --plan declares for it unbuilt is an upper bound (test_mrcr.request_size)
    most_prompt, most_answer = generate.size_bounds(needles, bin.high)
    assert built.prompt_tokens <= most_prompt and built.size - built.prompt_tokens <= most_answer
    assert row.n_chars == sum(len(m["content"]) for m in messages)
    # the target request occurs exactly n times, and nowhere else (not in the preamble)
    target = messages[row.desired_msg_index]["content"]
    assert row.desired_msg_index % 2 == 1 and target.startswith("write a ")
    assert requests_of(messages).count(target) == needles
    assert target not in messages[0]["content"]
    # answer = string + the gold reply; the gold is the asked occurrence
    prefix = row.random_string_to_prepend
    assert re.fullmatch(r"[A-Za-z0-9]{10}", prefix)
    assert row.answer == prefix + messages[row.desired_msg_index + 1]["content"]
    slots = [i for i in range(1, len(messages) - 1, 2) if messages[i]["content"] == target]
    occurrence = slots.index(row.desired_msg_index) + 1
    assert messages[-1]["content"] == (
        f"Prepend {prefix} to the {ordinal(occurrence)} (1 indexed) "
        f"{target.removeprefix('write a ')}. Do not include any other text in your response.")
    # the string occurs nowhere before the question
    assert not any(prefix in m["content"] for m in messages[:-1])
    # the size, as the original bins it, falls in the bin
    count = o200k().count
    size = sum(count(m["content"]) for m in messages) + count(row.answer)
    assert size == built.size and bin.low < size <= bin.high and bin.holds(size)
    assert built.prompt_tokens == size - count(row.answer)
    # the preamble: the verified opening, exactly two examples, nothing after the second
    preamble = messages[0]["content"]
    assert preamble.startswith(f"{OPENING}\n\n{EXAMPLE_START}\nUser: write a ")
    assert preamble.count(EXAMPLE_START) == 2 and preamble.count(EXAMPLE_END) == 2
    assert preamble.endswith(f"\n\n{EXAMPLE_END}\n")  # as the published row's ends
    assert "\nAssistant: " in preamble and "\n\nAssistant: " not in preamble
    # the original's size (about 3,100 o200k tokens) in its bins; short below them
    if bin.test_only:
        assert count(preamble) < 800
    else:
        assert 2_500 <= count(preamble) <= 3_300, count(preamble)


def test_needles_sit_at_uniform_slots_and_the_asked_occurrence_is_uniform():
    b = grid.BINS[0]
    samples = [build(4, b, i, seed=7) for i in range(120)]
    asked = collections.Counter(s.details["occurrence"] for s in samples)
    assert stats.chisquare([asked[k] for k in (1, 2, 3, 4)]).pvalue > 0.001
    # each needle's slot is uniform among the sample's slots: (slot + u) / slots, u uniform
    # in [0, 1), is then uniform in [0, 1) however few the slots (the smallest samples hold
    # a handful of pairs, as the original's do)
    jitter = random.Random(0)
    where = [(slot + jitter.random()) / (4 + s.details["distractors"]) for s in samples
             for slot in s.details["needle_slots"]]
    assert stats.kstest(where, "uniform").pvalue > 0.001


def test_distractors_hold_near_misses_on_the_topic_and_on_the_format(built_samples):
    """Where the sample's size leaves room (not in the smallest samples, which hold the
    needles alone, as the original's smallest rows do)."""
    on_topic = on_format = 0
    real = [(bin, built) for _, bin, built in built_samples if bin.high >= 16384]
    for bin, built in real:
        format, topic = built.details["format"], built.details["topic"]
        asks = [r.removeprefix("write a ").split(" about ") for r in
                requests_of(built.row.messages())]
        on_format += any(f == format and t != topic for f, t in asks)  # other topic
        on_topic += any(t == topic and f != format for f, t in asks)  # other format
    assert on_format == len(real) and on_topic >= 0.8 * len(real)
    # other requests repeat too, as the original's distractors do
    # (the preamble now takes a quarter to a half of an 8k-16k sample: fewer draws there)
    repeated = [built for bin, built in real if any(
        n >= 2 for r, n in collections.Counter(requests_of(built.row.messages())).items()
        if r != built.row.messages()[built.row.desired_msg_index]["content"])]
    assert len(repeated) >= 0.9 * len(real)


def test_the_smallest_samples_hold_few_pairs_as_the_originals_do(built_samples):
    pairs = [(built.row.total_messages - 2) // 2 for needles, bin, built in built_samples
             if needles == 2 and bin == grid.BINS[0]]
    assert min(pairs) <= 6 and max(pairs) <= 20, pairs


def test_a_bin_too_small_for_its_needles_says_so():
    with pytest.raises(generate.SampleUnbuildable, match="no 8-needle sample fits"):
        build(8, grid.TEST_BINS[0], 0)


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"),
                                     (8, "8th"), (11, "11th"), (12, "12th"), (13, "13th"),
                                     (21, "21st"), (22, "22nd"), (103, "103rd")])
def test_ordinals(n, text):
    assert ordinal(n) == text


def test_the_pool_holds_unique_passages_of_bounded_length_about_their_topic():
    pool = passages.pool()
    count = o200k().count
    assert len({p.text for p in pool.passages}) == len(pool.passages) > 5000
    assert {p.format for p in pool.passages} == {"poem", "short poem", "play scene", "story",
                                                "short story", "scripture passage"}
    assert sum(p.book == passages.BIBLE for p in pool.passages) <= passages.BIBLE_CAP
    for passage in pool.passages[::25]:
        assert passage.tokens == count(passage.text)
        assert passages.MIN_TOKENS <= passage.tokens <= passages.MAX_TOKENS
        assert topics.mentions(passage.text).get(passage.topic, 0) >= 1
        assert not re.search(r"\[[^\]]* by [^\]]* \d{4}\]|Illustration|Gutenberg", passage.text)
        assert not any(re.fullmatch(r"(chapter|book|volume|act|scene) [ivxlc\d]+\.?", part,
                                    re.IGNORECASE) for part in re.split(r"\n+", passage.text))
    # enough keys with eight passages for 8-needle samples in every bin
    assert sum(len(v) >= 8 for v in pool.by_key.values()) > 100


def test_topics_match_whole_words_in_either_form():
    assert topics.mentions("Two Horses and a horse; a horseshoe, a sea-horse.") == {"horses": 2}
    assert topics.mentions("The drawing-room and the drawing") == {"drawing-rooms": 1}
    assert all(" " not in name for name in topics.topics())
