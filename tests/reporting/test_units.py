"""Runs whose lengths are in different token units are never compared, gated or merged (exit
8, as for another judge): a 5k in a model's own tokens is not a 5k in o200k's."""

from __future__ import annotations

import dataclasses

from reporting.gating import gate
from reporting.__main__ import main
from reporting.gating.compare import run_identity
from reporting.storage.merge import NotComparable, check_shards, read_shard
from reporting.storage.store import records_frame

from .helpers import RATE, open_store, rate_run, store_run

SERVER_UNIT = "server:SmolLM2-135M-Instruct#0123456789ab"


def in_unit(records, unit):
    return [dataclasses.replace(r, token_unit=unit) for r in records]


def test_the_unit_is_the_records_and_old_runs_are_o200k():
    old = records_frame(rate_run("old", {1000: 2}, size=2))
    assert run_identity({"tokenizer": {"name": "o200k_base"}}, old)["tokenizer"] == "o200k_base"
    new = records_frame(in_unit(rate_run("new", {1000: 2}, size=2), SERVER_UNIT))
    assert run_identity({"tokenizer": {"name": "server"}}, new)["tokenizer"] == SERVER_UNIT


def test_compare_refuses_runs_in_two_units(tmp_path, capsys):
    store = open_store(tmp_path)
    store_run(store, "o200k", rate_run("o200k", {1000: 5}, size=5))
    store_run(store, "own", in_unit(rate_run("own", {1000: 5}, size=5), SERVER_UNIT))
    store.close()
    status = main(["compare", "o200k", "own", "--results-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 8 and "different token units" in err and SERVER_UNIT in err
    assert "\n" not in err.strip()


def test_the_gate_refuses_a_baseline_in_another_unit(tmp_path):
    base = rate_run("base", {1000: 10})
    cand = in_unit(rate_run("cand", {1000: 10}), SERVER_UNIT)
    baseline = gate.Baseline("base", "base", run_identity({}, records_frame(base)),
                             records_frame(base))
    verdict = gate.evaluate([gate.parse_threshold("toy_rate:-0.05")], baseline,
                            run_identity({}, records_frame(cand)), records_frame(cand),
                            {RATE.name: RATE})
    assert verdict.exit_status == 8 and "the tokenizer differs" in verdict.refusal


def test_merge_refuses_shards_in_two_units(tmp_path, capsys):
    stores = []
    for index, unit in enumerate(("o200k_base", SERVER_UNIT)):
        folder = tmp_path / f"shard{index}"
        folder.mkdir()
        store = open_store(folder)
        store_run(store, "run", in_unit(rate_run("run", {1000 + index: 3}, size=3), unit))
        store.close()
        stores.append(folder)
    shards = [read_shard(folder, "run") for folder in stores]
    try:
        check_shards(shards)
    except NotComparable as error:
        assert "different token units" in str(error)
    else:
        raise AssertionError("merged shards in two units")
    status = main(["merge", *map(str, stores), "--into", str(tmp_path / "merged")])
    assert status == 8 and "different token units" in capsys.readouterr().err


def test_verdicts_and_the_leaderboard_say_the_unit():
    from reporting.analysis.verdicts import verdict

    frame = records_frame(in_unit(rate_run("own", {500: 8, 1000: 6, 5000: 2}), SERVER_UNIT))
    lengthy = dataclasses.replace(RATE, length="params.length")
    found = verdict(frame, lengthy)
    assert found.length_unit == f"{SERVER_UNIT} tokens" and f"{SERVER_UNIT} tokens" in \
        found.text().splitlines()[0]
    words = verdict(frame, dataclasses.replace(lengthy, length_unit="words"))
    assert words.length_unit == "words"
    old = verdict(records_frame(rate_run("old", {500: 8, 1000: 6})), lengthy)
    assert old.length_unit == "o200k_base tokens"
