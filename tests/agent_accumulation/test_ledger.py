"""The environment: records as the spec keys them, needles and near misses, pages, the same
bytes in any process, fitted to a length in the run's unit, and cheap at 1M."""

from __future__ import annotations

import datetime
import hashlib
import re
import subprocess
import sys
import time

import pytest

from benchmarks.agent_accumulation import ledger, stimulus
from benchmarks.texts.fitting import TooShort
from fixtures.tokens.tokenizer import o200k

from .helpers import small_ledger

KEYS = ["id", "owner", "category", "date", "amount_cents", "note"]


def matches(record, built) -> int:
    return ((record["owner"] == built.owner) + (record["category"] == built.category)
            + (record["date"] >= built.date))


@pytest.mark.parametrize("needles", [1, 2, 4, 8])
def test_records_needles_and_near_misses_are_as_the_spec_says(needles):
    built = small_ledger(needles=needles, size=400, seed=f"n{needles}")
    records = [r for page in built.pages for r in page]
    assert len(ledger.OWNERS) >= 40 and len(set(ledger.OWNERS)) == len(ledger.OWNERS)
    assert len(ledger.CATEGORIES) >= 12
    assert all(list(r) == KEYS for r in records)
    assert all(re.fullmatch(r"inv-[0-9a-f]{6}", r["id"]) for r in records)
    assert len({r["id"] for r in records}) == len(records) == 400
    assert {datetime.date.fromisoformat(r["date"]).year for r in records} == {ledger.YEAR}
    assert all(isinstance(r["amount_cents"], int) and r["amount_cents"] > 0 for r in records)
    assert all(r["owner"] in ledger.OWNERS and r["category"] in ledger.CATEGORIES
               for r in records)
    assert all(len(r["note"]) >= 60 and r["note"] == r["note"].strip() for r in records)
    assert built.task == ledger.TASK.format(owner=built.owner, category=built.category,
                                            date=built.date)
    gold = [r for r in records if matches(r, built) == 3]
    near = [r for r in records if matches(r, built) == 2]
    assert tuple(r["id"] for r in gold) == built.gold_ids and len(gold) == needles
    assert built.gold_total == sum(r["amount_cents"] for r in gold)
    assert len(near) == built.near_misses >= max(needles, 3)
    failed = {("early" if r["date"] < built.date else
               "other_category" if r["category"] != built.category else "other_owner")
              for r in near}
    assert failed == {"early", "other_category", "other_owner"}
    assert len(built.pages) == 10 and {len(p) for p in built.pages} == {40}
    assert len(built.needle_depths) == needles and all(0 <= d <= 1 for d in built.needle_depths)


def test_pages_share_the_records_evenly_and_the_stream_keeps_its_prefix():
    built = small_ledger(size=67, pages=10)
    assert {len(p) for p in built.pages} <= {6, 7} and built.records == 67
    bigger = small_ledger(size=200, pages=10)
    small_records = [r for p in built.pages for r in p]
    big_records = [r for p in bigger.pages for r in p]
    # the needles stay at their depths; the records from the stream are shared where both
    # hold a record from it
    assert built.gold_ids == bigger.gold_ids and built.task == bigger.task
    specials = set(built.gold_ids) | {r["id"] for r in small_records if matches(r, built) == 2}
    assert [r for r in small_records if r["id"] not in specials][:20] == \
        [r for r in big_records if r["id"] not in specials][:20]


def test_the_same_bytes_in_another_process():
    def digest() -> str:
        built = ledger.build("agent_accumulation/0/ctx8k/nd2/p10/s0", 2, 10, 300)
        return hashlib.sha256(stimulus.trajectory_text(built).encode()).hexdigest()

    code = ("from tests.agent_accumulation.test_ledger import *; import hashlib; "
            "b = ledger.build('agent_accumulation/0/ctx8k/nd2/p10/s0', 2, 10, 300); "
            "print(hashlib.sha256(stimulus.trajectory_text(b).encode()).hexdigest())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": "123"},
                           check=True)
    assert other.stdout.strip() == digest()
    assert digest() != hashlib.sha256(stimulus.trajectory_text(
        ledger.build("agent_accumulation/1/ctx8k/nd2/p10/s0", 2, 10, 300)).encode()).hexdigest()


@pytest.mark.parametrize("length", [8192, 32768])
def test_the_trajectory_is_fitted_to_fill_0_85_to_1_of_its_length(length):
    built, tokens = ledger.fitted(f"fit/{length}", 2, 10, length, stimulus.trajectory_text,
                                  o200k())
    counted = o200k().count(stimulus.trajectory_text(built))
    assert counted == tokens and 0.85 * length <= counted <= length
    one_more = ledger.build(f"fit/{length}", 2, 10, built.records + 1)
    assert o200k().count(stimulus.trajectory_text(one_more)) > 0.99 * length


class CharsUnit:
    """A unit of its own: a token every three characters."""
    unit = identity = "thirds"
    is_default = False

    def count(self, text: str) -> int:
        return len(text) // 3


def test_the_fit_counts_in_the_runs_unit():
    built, tokens = ledger.fitted("unit", 2, 10, 8192, stimulus.trajectory_text, CharsUnit())
    assert tokens == len(stimulus.trajectory_text(built)) // 3
    assert 0.95 * 8192 <= tokens <= 8192


def test_a_length_the_pages_cannot_fit_is_too_short():
    with pytest.raises(TooShort):
        ledger.fitted("short", 8, 200, 4096, stimulus.trajectory_text, o200k())


def test_building_a_1m_ledger_is_well_under_a_second():
    ledger.note_source()  # the corpus, read once per process
    started = time.process_time()
    built = ledger.build("agent_accumulation/0/ctx1m/nd8/p10/s0", 8, 10, 9500)
    text = stimulus.trajectory_text(built)
    spent = time.process_time() - started
    assert len(text) > 3_500_000  # about 1M o200k tokens (3.6 characters a token)
    assert spent < 0.6, f"{spent:.2f} s of CPU"
