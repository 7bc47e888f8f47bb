"""Scoring: the card's equality checker, the rule before it, and the findings.

- **The rule first**: an answer that is empty (nothing but white space) or that declines
  ("I cannot answer", "the documents do not say") is INCORRECT by rule and no judge is
  asked. The card's checker, asked about an empty candidate, has been seen to reply CORRECT
  (scitix/sieval#44); Artificial Analysis's own harness and NVIDIA NeMo Gym's score an
  empty answer 0 without a judge call.
- **The card's equality checker** (``--judge-model``, any model): the dataset card's
  "Scoring Approach" prompt byte for byte (huggingface.co/datasets/ArtificialAnalysis/AA-LCR,
  README at revision bdae010; its code block ends with a blank line, kept), formatted with
  the question, the CSV's answer as it is written and the reply; one user message,
  temperature 0. The card names Qwen3 235B A22B 2507 (non-reasoning) as its checker; the
  judge's identity is recorded in every record (``details.judge``). A reply naming exactly
  one of CORRECT and INCORRECT (case ignored, as a whole word) is the verdict; one naming
  both or neither is *unparsable*: not scored, counted and named in the findings.
- **The miniature without a judge model**: a deterministic check, every number and word of
  the official answer in the reply (case and punctuation ignored). It is the miniature's
  alone: the card's questions need a judge.

Findings: per source and length, the mean over questions of each question's mean over its
repeats, with a bootstrap interval over questions; each length beside the native one on the
questions scored at both (paired: the mean difference and its paired bootstrap interval).
"""

from __future__ import annotations

import re

from benchmarks.texts.fitting import length_label

JUDGE_PROMPT = (
    "Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.\n"
    "For the CANDIDATE ANSWER to be correct, it must be consistent with the OFFICIAL ANSWER.\n"
    "\n"
    "The question, for reference only: {question}\n"
    "The OFFICIAL ANSWER: {official_answer}\n"
    "CANDIDATE ANSWER TO ASSESS: {candidate_answer}\n"
    "\n"
    "Reply only with CORRECT or INCORRECT.\n"
    "\n")
JUDGE_PROMPT_NAME = "aa-lcr-card-equality-checker@bdae010"
# The card gives no limit; a one-word verdict needs a few tokens (a reasoning judge's
# thinking budget is added to it as for any model).
JUDGE_MAX_TOKENS = 16
DETERMINISTIC_JUDGE = {"name": "deterministic:miniature-answer-terms", "version": 1,
                       "role": "judge"}

DECLINES = re.compile(
    r"^\W*(i (cannot|can't|can not|am unable to|am not able to) (answer|determine|find|tell)|"
    r"i('m| am) sorry|i (do not|don't) know|(the )?(provided )?documents? (do|does) not "
    r"(contain|say|mention|provide|include)|there is no (information|answer)|"
    r"(not enough|insufficient) information|unable to (answer|determine))", re.IGNORECASE)


def rule(answer: str | None) -> str | None:
    """"empty" or "declined" where the answer is INCORRECT by rule; None: judge it."""
    if not (answer or "").strip():
        return "empty"
    if DECLINES.search(answer):
        return "declined"
    return None


def judge_messages(question: str, official: str, candidate: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": JUDGE_PROMPT.format(
        question=question, official_answer=official, candidate_answer=candidate)}]


def parse_verdict(reply: str | None) -> bool | None:
    """True for CORRECT, False for INCORRECT, None for a reply naming neither or both."""
    words = {w.upper() for w in re.findall(r"\b(CORRECT|INCORRECT)\b", reply or "",
                                           re.IGNORECASE)}
    return None if len(words) != 1 else words.pop() == "CORRECT"


def terms(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def names_answer(answer: str, official: str) -> bool:
    """The miniature's deterministic check: every term of the official answer in the reply."""
    found = set(terms(answer))
    return all(term in found for term in terms(official))


# -- findings -----------------------------------------------------------------------------
def _question_means(part):
    """{question id: mean over its repeats} of the scored samples in ``part``."""
    return part.groupby("params.question_id")["scores.correct"].mean().to_dict()


def findings(frame) -> dict:
    from reporting.analysis.stats import bootstrap_interval, paired_difference_interval

    needed = ("params.source", "params.length", "params.question_id", "scores.correct")
    if frame.empty or any(c not in frame for c in needed):
        return {}
    ok = frame[(frame["outcome"] == "ok") & frame["scores.correct"].notna()].copy()
    ok["scores.correct"] = ok["scores.correct"].astype(float)
    result, lines = {"sources": {}}, []
    for source, part in ok.groupby("params.source", sort=True):
        native = _question_means(part[part["params.length"] == 0])
        by_length = {}
        for length, at in sorted(part.groupby("params.length"), key=lambda item: item[0]):
            means = _question_means(at)
            values = list(means.values())
            low, high = bootstrap_interval(values)
            entry = {"accuracy": sum(values) / len(values), "ci": [low, high],
                     "questions": len(values), "samples": len(at),
                     "repeats": int(at.groupby("params.question_id").size().max())}
            name = "native" if length == 0 else length_label(int(length))
            if length:
                both = sorted(set(means) & set(native))
                if both:
                    base = [native[q] for q in both]
                    swept = [means[q] for q in both]
                    gap = sum(swept) / len(both) - sum(base) / len(both)
                    entry["paired"] = {"questions": len(both), "gap": gap,
                                       "gap_ci": list(paired_difference_interval(base, swept))}
            by_length[name] = entry
            lines.append(_line(str(source), name, entry))
        result["sources"][str(source)] = by_length
    if "details.judge_unparsable" in frame:
        unparsable = frame[frame["details.judge_unparsable"].fillna(False).astype(bool)]
        if len(unparsable):
            ids = sorted(unparsable["sample_id"])
            result["judge_unparsable"] = {"count": len(ids), "samples": ids}
            lines.append(f"judge: {len(ids)} replies neither CORRECT nor INCORRECT, not "
                         f"scored: {', '.join(ids[:8])}{' and more' if len(ids) > 8 else ''}")
    if "details.rule" in ok:
        ruled = ok["details.rule"].dropna()
        if len(ruled):
            counts = ruled.value_counts().sort_index().to_dict()
            result["by_rule"] = {str(k): int(v) for k, v in counts.items()}
            lines.append("INCORRECT by rule, no judge asked: " + ", ".join(
                f"{v} {k}" for k, v in result["by_rule"].items()))
    result["lines"] = lines
    return result


def _line(source: str, length: str, entry: dict) -> str:
    low, high = entry["ci"]
    text = (f"{source} at {length}: accuracy {entry['accuracy']:.3f} [{low:.3f}, {high:.3f}] "
            f"over {entry['questions']} questions ({entry['samples']} samples, up to "
            f"{entry['repeats']} repeats each)")
    paired = entry.get("paired")
    if paired:
        glow, ghigh = paired["gap_ci"]
        text += (f"; against native on the same {paired['questions']} questions "
                 f"{paired['gap']:+.3f} [{glow:+.3f}, {ghigh:+.3f}]")
    return text
