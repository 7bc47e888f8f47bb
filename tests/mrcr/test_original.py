"""The original's rows: read unchanged from parquet files in openai/mrcr's layout (written
here, small), binned as the original bins them, verified through the data registry, and the
source chosen (or [unavailable]) from whether the files are there."""

from __future__ import annotations

import dataclasses
import hashlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.mrcr import grid, original, stimulus
from fixtures.data import registry as data

from .conftest import build


def write_original(folder, needles: int, rows: list[dict]) -> list[dict]:
    """``rows`` as openai/mrcr's two files of one needle count (half in each), with the
    fixed revision's ``date_added`` column."""
    rows = [{**row, "date_added": "2025-12-05" if i % 3 == 0 else None}
            for i, row in enumerate(rows)]
    half = (len(rows) + 1) // 2
    for shard, part in enumerate((rows[:half], rows[half:])):
        path = folder / original.relative(needles, shard)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(part), path)
    return rows


def original_rows(needles: int) -> list[dict]:
    """Rows in the original's schema: three in 4k-8k, two in 8k-16k, interleaved, and one
    too short for any bin."""
    found = []
    for index in range(3):
        found.append(build(needles, grid.BINS[0], index, seed=5).row.to_dict())
        if index < 2:
            found.append(build(needles, grid.BINS[1], index, seed=5).row.to_dict())
    found.insert(1, build(needles, grid.TEST_BINS[0], 0, seed=5).row.to_dict())
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("openai_mrcr")
    written = {n: write_original(root, n, original_rows(n)) for n in (2, 4)}
    return root, written


def test_rows_are_read_unchanged_in_file_order_across_the_two_files(folder):
    root, written = folder
    rows = original.Rows(original.paths(2, str(root)))
    assert len(rows) == len(written[2])
    for index, row in enumerate(written[2]):
        assert rows.row(index) == row  # every field, date_added included, as written


def test_a_sample_is_the_nth_row_of_its_bin_and_a_short_bin_says_how_many_it_has(folder):
    root, written = folder
    rows = original.Rows(original.paths(2, str(root)))
    first, second = grid.BINS[0], grid.BINS[1]
    in_first = [i for i in range(len(rows)) if first.holds(rows.size(i))]
    assert [rows.nth_in_bin(first, k) for k in range(3)] == in_first and len(in_first) == 3
    assert rows.nth_in_bin(first, 3) is None and rows.count_in_bin(second) == 2
    # the character pre-filter never hides a row that is in the bin
    for b in grid.BINS:
        assert [i for i in range(len(rows)) if rows.in_bin(i, b)] == \
            [i for i in range(len(rows)) if b.holds(rows.size(i))]
    sample = grid.MrcrSample("openai", 2, second.label, second.low, second.high, False, 1,
                             None, None, False)
    prepared = stimulus.prepare(sample, str(root))
    assert prepared.row.to_dict() == {k: v for k, v in written[2][rows.nth_in_bin(second, 1)]
                                      .items() if k != "date_added"}
    assert prepared.size == rows.size(rows.nth_in_bin(second, 1))
    assert prepared.details["revision"] is None  # read from --mrcr-original-dir: unverified
    missing = grid.MrcrSample("openai", 2, second.label, second.low, second.high, False, 2,
                              None, None, False)
    assert stimulus.prepare(missing, str(root)).skip == \
        "openai/mrcr has 2 2-needle rows in the 8k-16k bin, not 3"


def test_a_file_that_is_not_the_originals_is_refused_with_its_name(tmp_path):
    path = tmp_path / original.relative(8, 0)
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{"prompt": "[]", "answer": "x"}]), path)
    with pytest.raises(data.DataUnavailable, match="8needle_0.parquet: not an openai/mrcr file"):
        original.Rows([path])


def test_the_data_directorys_files_are_verified_through_the_registry(folder, tmp_path,
                                                                      monkeypatch):
    """In the data directory, each file must have its registered sha256 (here: the small
    files' own, put in the registry for the test; then a wrong one)."""
    root, _ = folder
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    for name, path in zip(original.names(2), original.paths(2, str(root))):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(path.read_bytes())
        entry = data.REGISTRY[name]
        monkeypatch.setitem(data.REGISTRY, name, dataclasses.replace(
            entry, sha256=hashlib.sha256(path.read_bytes()).hexdigest()))
    data.data_file.cache_clear()
    try:
        assert original.paths(2, None) == [tmp_path / name for name in original.names(2)]
        assert original.missing((2,), None) is None
        assert "4needle/4needle_0.parquet" in original.missing((2, 4), None)
        first = original.names(2)[0]
        monkeypatch.setitem(data.REGISTRY, first, dataclasses.replace(
            data.REGISTRY[first], sha256="0" * 64))
        data.data_file.cache_clear()
        with pytest.raises(data.DataUnavailable, match="sha256 .* replace it"):
            original.paths(2, None)
    finally:
        data.data_file.cache_clear()


def test_the_registry_declares_the_fixed_revisions_six_files():
    for needles in (2, 4, 8):
        for shard, name in enumerate(original.names(needles)):
            entry = data.REGISTRY[name]
            assert entry.url == original.url(needles, shard)
            assert original.REVISION in entry.url and entry.license == "MIT" and entry.optional


def options(**overrides):
    values = {"scale": "test", "model": None, "max_context": None, "mrcr_source": "auto",
              "mrcr_needles": None, "mrcr_max_bin": None, "mrcr_samples": None,
              "mrcr_seed": 0, "mrcr_merge_user_messages": False, "mrcr_max_tokens": None,
              "mrcr_temperature": None, "mrcr_original_dir": None, **overrides}
    return values.get


def test_auto_runs_the_originals_rows_where_they_are_else_the_generated_ones(folder, tmp_path):
    root, _ = folder
    present = grid.settings(options(mrcr_original_dir=str(root)))
    assert present.sources == ("openai",) and present.missing_original is None
    assert {s.id for s in grid.build(present)} == {"oai-nd2-b8k-s000"}
    absent = grid.settings(options(mrcr_original_dir=str(tmp_path)))
    assert absent.sources == ("generated",) and absent.missing_original is None
    assert all(s.source == "generated" for s in grid.build(absent))


def test_asked_for_and_absent_the_original_is_unavailable_and_says_how_to_get_it(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    both = grid.settings(options(mrcr_source="both"))
    assert both.sources == ("generated", "openai")
    assert "python -m benchmarks.mrcr.original" in both.missing_original
    assert {s.source for s in grid.build(both)} == {"generated"}
    only = grid.settings(options(mrcr_source="original", mrcr_needles=["8"]))
    assert grid.build(only) == [] and "8needle/8needle_0.parquet" in only.missing_original


def test_the_merge_option_joins_only_the_two_opening_user_messages():
    row = build(2, grid.TEST_BINS[1], 0).row
    sent = stimulus.messages(row)
    assert sent == row.messages() and [m["role"] for m in sent[:2]] == ["user", "user"]
    merged = stimulus.messages(row, merge_user_messages=True)
    assert merged[0] == {"role": "user",
                         "content": f"{sent[0]['content']}\n\n{sent[1]['content']}"}
    assert merged[1:] == sent[2:]
    roles = [m["role"] for m in merged]
    assert all(a != b for a, b in zip(roles[:-1], roles[1:]))
