"""NoLiMa end to end: pytest in a subprocess, the real openai client, the scripted server
playing a model that names the needle's character (or another one), the store, the plots and
the findings; and the prompts NoLiMa's procedure builds, compared byte for byte."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.doubles.scripted_server import ScriptedServer
from fixtures.tokens.tokenizer import o200k

from ..data_dir import own_data_dir
from ..subprocess_pytest import child_env, run_records, run_scripted
from .helpers import NAMES, reference_prompts, write_folder

OWN_NAMES = json.loads((Path(__file__).parents[2] / "benchmarks" / "nolima" /
                        "contextrot_latent.json").read_text())[0]["character_set"]
EVERY_NAME = re.compile("|".join(sorted(NAMES + OWN_NAMES, key=len, reverse=True)))


def named(request: dict) -> str | None:
    """The one character the haystack names (only the needle names one)."""
    found = set(EVERY_NAME.findall(request["messages"][-1]["content"]))
    return found.pop() if len(found) == 1 else None


def reads(request: dict) -> str:
    return f"The answer is {named(request)}."


def guesses_another(request: dict) -> str:
    name = named(request)
    pool = NAMES if name in NAMES else OWN_NAMES
    return next(other for other in pool if other != name and other not in name)


def run(server: ScriptedServer, results: Path, *extra: str,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run_scripted("nolima", server.base_url, results, *extra, env=env)


records = run_records


def digest(system: str, user: str) -> str:
    return hashlib.sha256(json.dumps([system, user]).encode()).hexdigest()


def test_at_full_scale_every_prompt_is_nolimas_byte_for_byte(tmp_path):
    """A folder in NoLiMa's layout at 250 and 1,000 tokens: the messages sent for every test,
    depth and haystack are the ones NoLiMa's procedure builds from those files with o200k (an
    independent construction from the spec, tests/nolima/helpers.py), as sha256 sets; the
    request is NoLiMa's (temperature 0, 192 tokens, top_p 1, seed 43); a model that names the
    needle's character scores 1 everywhere."""
    folder = write_folder(tmp_path / "nolima")
    with ScriptedServer(reads, context_length=1_000_000) as server:
        done = run(server, tmp_path / "results", "--scale", "full", "--nolima-dir",
                   str(folder), "--nolima-lengths", "250,1000", "-n", "2")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    expected = reference_prompts(folder, ("needle_set", "needle_set_ONLYDirect"), (250, 1000),
                                 o200k()._encoding)
    assert len(expected) == 5 * 2 * 26 * 2
    sent = [[m["content"] for m in request["messages"]] for request in server.requests]
    assert all(len(messages) == 2 for messages in sent)
    assert sorted(digest(*m) for m in sent) == sorted(digest(*m) for m in expected)
    assert all((r["temperature"], r["max_tokens"], r["top_p"], r["seed"]) == (0, 192, 1, 43)
               for r in server.requests)
    found = records(tmp_path / "results")
    assert len(found) == len(expected)
    assert all(r["outcome"] == "ok" and r["scores"]["contains"] is True for r in found)
    assert {r["params"]["source"] for r in found} == {"nolima"}
    assert "latent vs literal, contains accuracy % (n):" in done.stdout
    assert re.search(r"latent needle_set \[all\]: 250 100\.0% .*n=208.*base 100\.0 "
                     r"\(thr\. 85\.0\); effective length 1K", done.stdout)
    plots = tmp_path / "results" / "run" / "plots" / "nolima"
    assert {p.name for p in plots.iterdir()} == {
        "latent_vs_literal.png", "depth-needle_set.png", "depth-needle_set_ONLYDirect.png"}


def test_without_nolimas_data_one_case_names_it_and_contextrots_own_needles_run(tmp_path):
    """The default at full scale, no nolima/ in the data directory: one [unavailable] case
    says what to fetch and its licence; contextrot's own sets run, and a model naming another
    character scores 0."""
    # the absence is the test's own: a user's data directory may well hold NoLiMa's files
    data = own_data_dir(tmp_path / "data", without=["nolima"])
    with ScriptedServer(guesses_another, context_length=1_000_000) as server:
        done = run(server, tmp_path / "results", "--scale", "full", "--nolima-lengths", "250",
                   "-k", "d048 or nolima_data", env=child_env(CONTEXTROT_DATA_DIR=str(data)))
    assert done.returncode == 1, done.stdout[-3000:]
    assert re.search(r"nolima: NoLiMa's data is not in .*nolima: fetch needlesets/"
                     r"\{needle_set,needle_set_ONLYDirect\}\.json .* from https://huggingface"
                     r"\.co/datasets/amodaresi/NoLiMa \(Adobe Research License", done.stdout)
    assert "Traceback" not in done.stdout
    found = records(tmp_path / "results")
    assert {r["params"]["set"] for r in found} == {"contextrot_latent", "contextrot_literal"}
    assert len(found) == 21  # 14 latent and 7 literal tests, one haystack each
    assert all(r["outcome"] == "ok" and r["scores"]["contains"] is False for r in found)


@pytest.mark.parametrize("answerer, expected", [(reads, True), (guesses_another, False)])
def test_the_test_scale_runs_contextrots_own_needles(tmp_path, answerer, expected):
    with ScriptedServer(answerer, context_length=1_000_000) as server:
        done = run(server, tmp_path / "results")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert sorted(r["sample_id"] for r in found) == sorted(
        f"contextrot_{kind}.json-0001_place_T01_{q}-contextrot_book_1.txt-{ctx}-d048"
        for kind, q in (("latent", "onehop"), ("latent", "twohop"), ("literal", "direct"))
        for ctx in ("ctx0.25k", "ctx1k"))
    assert all(r["scores"]["contains"] is expected for r in found)
    assert all(r["details"]["character"] in r["details"]["needle"] for r in found)
