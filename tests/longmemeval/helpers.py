"""Scripted LongMemEval players for the scripted server, and small files in each source's
schema (Chroma's rows, openbench's columns, LongMemEval's instances)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarks.longmemeval import generate

JUDGE = "judge-model"  # the scripted server answers it as a judge
CHROMA_JUDGED = re.compile(r"CORRECT answer: (.*?)\n\n {8}Response to judge: (.*?)\n\n {8}"
                           r"Instructions:", re.S)
LME_JUDGED = re.compile(r"\n\n(?:Correct Answer|Explanation): (.*?)\n\nModel Response: (.*?)\n\n",
                        re.S)
QUESTION = re.compile(r"\nQuestion: (.*)\nAnswer:$")


def short_only(answers: dict[str, str], limit_chars: int):
    """A model that answers a prompt of at most ``limit_chars`` right (``answers``: question
    or prompt -> answer) and abstains on a longer one; as the judge (model ``JUDGE``) it says
    true when the reply is the correct answer."""
    def respond(request: dict) -> str:
        prompt = request["messages"][-1]["content"]
        if request["model"] == JUDGE:
            found = CHROMA_JUDGED.search(prompt)
            if found:
                return "true" if found.group(1) == found.group(2) else "false"
            found = LME_JUDGED.search(prompt)
            return "yes" if found.group(1) == found.group(2) else "no"
        if len(prompt) > limit_chars:
            return "I don't know: it is not mentioned."
        asked = QUESTION.search(prompt)
        return answers[asked.group(1) if asked else prompt]
    return respond


def generated_answers(count: int, seed: int = 0, scale: str = "test") -> dict[str, str]:
    return {q.question: q.answer for q in (generate.generate(i, seed, scale)
                                           for i in range(count))}


def chroma_rows(count: int = 3) -> list[dict]:
    """Rows in openbench's columns: short focused prompts, long full ones (braces and quotes
    in them, sent unchanged)."""
    return [{"custom_id": f"id{i:02d}{'_abs' if i == 2 else ''}",
             "question": f"How many things number {i}?", "answer": str(i + 3),
             "focused_input": f"Focused {{history}} {i}: \"the answer\" is {i + 3}.\n",
             "full_input": f"Full history {i}: " + "filler words go on. " * 400,
             "focused_input_tokens": 20, "full_input_tokens": 2000} for i in range(count)]


def write_rows(path: Path, rows: list[dict]) -> Path:
    """``rows`` as parquet, CSV or JSONL, by the path's suffix."""
    import pandas as pd

    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    elif path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return path


def chroma_csvs(folder: Path, rows: list[dict]) -> tuple[Path, Path]:
    """Chroma's two CSVs: ``focused_prompt`` and ``full_prompt``, each with ``token_count``."""
    out = []
    for condition in ("focused", "full"):
        out.append(write_rows(folder / f"cleaned_longmemeval_s_{condition}.csv", [
            {"custom_id": r["custom_id"], "token_count": r[f"{condition}_input_tokens"],
             f"{condition}_prompt": r[f"{condition}_input"], "question": r["question"],
             "answer": r["answer"]} for r in rows]))
    return out[0], out[1]


def longmemeval_file(path: Path, count: int = 2) -> Path:
    """LongMemEval instances in its layout: contextrot's generated questions, renamed."""
    entries = []
    for index in range(count):
        q = generate.generate(index, 7, "test")
        entries.append({
            "question_id": f"q{index}", "question_type": q.question_type,
            "question": q.question, "answer": q.answer, "question_date": q.question_date,
            "haystack_session_ids": list(q.session_ids),
            "haystack_dates": list(q.dates),
            "haystack_sessions": [list(s) for s in q.sessions],
            "answer_session_ids": list(q.evidence_ids)})
    path.write_text(json.dumps(entries))
    return path
