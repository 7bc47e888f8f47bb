"""AA-LCR end to end on a miniature in the dataset's exact layout (written by the test):
pytest in a subprocess, the real openai client, the scripted server playing the model and
the judge, the store, the findings in summary.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarks.aa_lcr import miniature, scoring, stimulus
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_records, run_scripted

JUDGE = "judge-model"
CONTEXT = 1_000_000
JUDGED = re.compile(r"The OFFICIAL ANSWER: (.*)\nCANDIDATE ANSWER TO ASSESS: (.*)\n\nReply only",
                    re.S)


def player(answer_for, judge_says=None):
    """The model answers ``answer_for(prompt)``; the judge says CORRECT when the candidate is
    the official answer (or ``judge_says``, whatever it is asked)."""
    def respond(request: dict) -> str:
        prompt = request["messages"][-1]["content"]
        if request["model"] == JUDGE:
            if judge_says is not None:
                return judge_says
            official, candidate = JUDGED.search(prompt).groups()
            return "CORRECT" if official == candidate else "INCORRECT"
        return answer_for(prompt)
    return respond


def run(tmp_path: Path, server: ScriptedServer, *extra: str):
    data = miniature.write(tmp_path / "aa-lcr")
    done = run_scripted("aa_lcr", server.base_url, tmp_path / "results", "--aa-lcr-dir",
                        str(data), "--aa-lcr-source", "card", "--judge-model", JUDGE, *extra)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done, run_records(tmp_path / "results")


def summary(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "results" / "run" / "summary.json").read_text())


def test_an_oracle_scores_1_with_the_cards_prompt_and_the_cards_judge(tmp_path):
    """Every prompt is the card's template over the question's documents in order (native)
    or with other sets' documents around them (swept); every judge request is the card's
    equality checker around the question, the official answer and the reply."""
    with ScriptedServer(player(miniature.oracle), context_length=CONTEXT) as server:
        done, found = run(tmp_path, server, "--aa-lcr-questions", "3",
                          "--aa-lcr-lengths", "1k,2k")
        requests = list(server.requests)
    assert len(found) == 9 and all(r["scores"]["correct"] is True for r in found)
    rows = {row["question_id"]: row for row in miniature.questions()}
    asked = [r for r in requests if r["model"] == "scripted"]
    judged = [r for r in requests if r["model"] == JUDGE]
    assert len(asked) == 9  # (the judge's identical requests may come from the cache)
    documents = documents_of_miniature(tmp_path / "aa-lcr")
    for record in found:
        row = rows[record["params"]["question_id"]]
        names = record["details"]["documents"]
        expected = stimulus.prompt([documents[n] for n in names], row["question"])
        assert expected in {r["messages"][0]["content"] for r in asked}
        own = [f"{row['document_category']}/{row['document_set_id']}/{n}"
               for n in row["data_source_filenames"].split(";")]
        assert [names[i] for i in record["details"]["own_positions"]] == own
        if record["params"]["length"] == 0:
            assert names == own
        assert record["details"]["judge"]["name"] == JUDGE
        assert record["details"]["judge"]["prompt"] == scoring.JUDGE_PROMPT_NAME
    sent = {r["messages"][0]["content"] for r in judged}
    assert sent == {scoring.JUDGE_PROMPT.format(question=row["question"],
                                                official_answer=row["answer"],
                                                candidate_answer=row["answer"])
                    for row in rows.values() if row["question_id"] <= 3}
    assert all(len(r["messages"]) == 1 and r["temperature"] == 0 for r in judged)
    findings = summary(tmp_path)["findings"]["aa_lcr"]["sources"]["card"]
    assert findings["native"]["accuracy"] == 1.0 and findings["native"]["questions"] == 3
    assert findings["2K"]["paired"] == {"questions": 3, "gap": 0.0, "gap_ci": [0.0, 0.0]}
    assert "card at native: accuracy 1.000" in done.stdout


def test_an_empty_answer_scores_0_whatever_the_judge_says(tmp_path):
    """The judge would say CORRECT to anything: an empty or declining answer is INCORRECT by
    rule and the judge is never asked (scitix/sieval#44)."""
    def answer(prompt: str) -> str:
        return "" if "Northwind" in prompt.split("START QUESTION")[1] else \
            "I cannot answer this from the documents."

    with ScriptedServer(player(answer, judge_says="CORRECT"), context_length=CONTEXT) as server:
        done, found = run(tmp_path, server, "--aa-lcr-questions", "3",
                          "--aa-lcr-lengths", "none", "--aa-lcr-repeats", "2")
        requests = list(server.requests)
    assert len(found) == 6 and all(r["scores"]["correct"] is False for r in found)
    assert sorted(r["details"]["rule"] for r in found) == ["declined"] * 2 + ["empty"] * 4
    assert not [r for r in requests if r["model"] == JUDGE]
    findings = summary(tmp_path)["findings"]["aa_lcr"]
    assert findings["sources"]["card"]["native"]["accuracy"] == 0.0
    assert findings["by_rule"] == {"declined": 2, "empty": 4}
    # two repeats are two requests (the response cache keys them apart)
    assert len([r for r in requests if r["model"] == "scripted"]) == 6


def documents_of_miniature(folder: Path) -> dict[str, str]:
    from benchmarks.aa_lcr import dataset

    return dataset.Documents(folder / "extracted_text" / dataset.ZIP_NAME, "").texts()


def test_the_prompts_are_the_same_bytes_in_every_run_and_at_any_n(tmp_path):
    hashes = []
    for workers in ("0", "2"):
        folder = tmp_path / f"n{workers}"
        with ScriptedServer(player(miniature.oracle), context_length=CONTEXT) as server:
            _, found = run(folder, server, "--aa-lcr-questions", "2", "--aa-lcr-lengths",
                           "1k,2k", "-n", workers)
        hashes.append({r["sample_id"]: (r["stimulus_hash"], r["target_tokens"]) for r in found})
    assert len(hashes[0]) == 6 and hashes[0] == hashes[1]


def test_the_plan_prices_the_sweep_without_building_it(tmp_path):
    from ..subprocess_pytest import run_pytest

    done = run_pytest("-m", "aa_lcr", "--plan", "--model", "gpt-4.1-mini", "--price-in", "2",
                      "--price-out", "8", "--scale", "full", "--aa-lcr-source", "miniature",
                      "--aa-lcr-lengths", "128k,1m", "--aa-lcr-max-tokens", "100",
                      "--results-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # six questions: native (built and counted, about 400 tokens each) and at 128k and 1m
    # (their lengths, never built), 100 output tokens each
    row = re.search(r"^aa_lcr +(\d+) +(\d+) +([\d,]+) +([\d,]+)", done.stdout, re.M)
    assert row, done.stdout[-3000:]
    samples, skipped, prompt, output = (int(v.replace(",", "")) for v in row.groups())
    assert (samples, skipped, output) == (18, 0, 1800)
    assert 6 * (128 * 1024 + 1024 * 1024) < prompt < 6 * (128 * 1024 + 1024 * 1024 + 600)


def test_a_scripted_fall_is_one_cliff_in_the_terminal_summary_and_report(tmp_path):
    """The oracle on native prompts, nothing past them: 12 of 12 right at the 512 tier, 0 of
    12 at 1k, one cliff (the miniature without a judge model: its deterministic check)."""
    def short_only(prompt: str) -> str:
        return miniature.oracle(prompt) if len(prompt) < 2500 else "Q1."

    for name, answer, cliffs in (("fall", short_only, 1), ("flat", miniature.oracle, 0)):
        results = tmp_path / name
        with ScriptedServer(player(answer), context_length=CONTEXT) as server:
            done = run_scripted("aa_lcr", server.base_url, results, "--aa-lcr-source",
                                "miniature", "--aa-lcr-questions", "6", "--aa-lcr-repeats", "2")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        found = json.loads((results / "run" / "summary.json").read_text())["findings"]["aa_lcr"]
        report = (results / "run" / "report.html").read_text()
        terminal = [line for line in done.stdout.splitlines() if "cliff:" in line]
        assert len(found.get("cliffs", {}).get("cliffs", [])) == cliffs
        assert len(terminal) == cliffs and report.count("cliff: correct") == cliffs
        if cliffs:
            assert "cliff: correct 1.000" in terminal[0] and "at 512 -> 0.000" in terminal[0]


def test_the_card_absent_or_unregistered_is_one_line_with_the_fix(tmp_path):
    from ..data_dir import own_data_dir
    from ..subprocess_pytest import child_env, run_pytest

    with ScriptedServer(player(miniature.oracle), context_length=CONTEXT) as server:
        data = own_data_dir(tmp_path / "data", without=["aa_lcr"])
        absent = run_scripted("aa_lcr", server.base_url, tmp_path / "r1", "--aa-lcr-source",
                              "card", "--judge-model", JUDGE,
                              env=child_env(CONTEXTROT_DATA_DIR=str(data)))
        # the miniature's bytes where the card's should be: the registry's sha256 refuses them
        folder = miniature.write(tmp_path / "data" / "aa_lcr")
        wrong = run_scripted("aa_lcr", server.base_url, tmp_path / "r2", "--judge-model", JUDGE,
                             env=child_env(CONTEXTROT_DATA_DIR=str(data)))
        no_judge = run_pytest("-m", "aa_lcr", "-q", "--aa-lcr-dir", str(folder),
                              "--aa-lcr-source", "card", "--results-dir", str(tmp_path / "r3"))
    assert absent.returncode != 0
    assert "AA-LCR's dataset is not in the data directory (aa_lcr/): fetch AA-LCR yourself: " \
           "https://huggingface.co/datasets/ArtificialAnalysis/AA-LCR (revision bdae010" \
           in absent.stdout
    assert wrong.returncode != 0 and "AA-LCR_Dataset.csv has sha256" in wrong.stdout
    assert "replace it with the registered file" in wrong.stdout
    assert no_judge.returncode != 0
    assert "AA-LCR's questions are scored by an LLM judge: give --judge-model" in no_judge.stdout
