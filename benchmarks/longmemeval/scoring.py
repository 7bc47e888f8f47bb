"""Judging an answer, and the paired findings: focused against full on the same questions.

- **Chroma's judge** (the default with ``--judge-model``): Chroma's ``DEFAULT_PROMPT`` of
  ``experiments/longmemeval/evaluate/evaluate_longmemeval.py`` byte for byte (its leading new
  line, the 8-space indentation of its source, the trailing spaces of two lines, the closing
  new line and 8 spaces), formatted with the question, the correct answer and the reply; sent
  as one user message at temperature 0 with 100 output tokens, as Chroma's judge is.
- **LongMemEval's judges** (``--longmemeval-judge longmemeval``): its per-type yes/no
  prompts (``src/evaluation/evaluate_qa.py``), the abstention prompt for ``_abs`` questions;
  10 output tokens, temperature 0.
- A reply must name exactly one of the two verdict words (``true``/``false``, or
  ``yes``/``no``), in any case, quoted or bold; a reply naming both or neither is
  *unparsable*: not scored, counted and named in the findings. (LongMemEval's own script
  reads any reply containing "yes" as yes; this reading refuses "yes and no".)
- Without ``--judge-model`` (the generated histories only): the deterministic judge, one of
  the question's accepted answers (a value; a number as digits or a word) named in the reply,
  whole words, case and punctuation ignored.
- The judge sees the reply, never the thinking (the harness keeps that apart).
- **Abstention**: every reply is also read by a phrase detector ("I don't know", "not
  mentioned", "no information"...), so a wrong answer that declines is counted apart from one
  that answers wrongly (Chroma: Claude's gap is mostly abstention).
"""

from __future__ import annotations

import re

CHROMA_JUDGE_PROMPT = (
    "\n"
    "        Given this question and the CORRECT answer, determine whether the response is "
    "correct (meaning it factually aligns with the correct answer). \n"
    "        In some cases, 0 and \"I do not have an answer\" are considered to be both "
    "correct. \n"
    "        If both responses say that there is no answer, this should be judged as true.\n"
    "        If the correct answer contains an answer, but the response abstains from "
    "answering, this should be judged as false.\n"
    "\n"
    "        Question: {question}\n"
    "\n"
    "        CORRECT answer: {correct_answer}\n"
    "\n"
    "        Response to judge: {output}\n"
    "\n"
    "        Instructions: Respond with only \"true\" if the response factually aligns with "
    "the correct answer, or \"false\" if it does not. Do not provide any explanation - just "
    "\"true\" or \"false\".\n"
    "        ")
CHROMA_JUDGE_MAX_TOKENS = 100

# LongMemEval's judge prompts (evaluate_qa.py), verbatim, by question type.
_LME_INTRO = ("I will give you a question, a correct answer, and a response from a model. "
              "Please answer yes if the response contains the correct answer. Otherwise, answer "
              "no. ")
_LME_STEPS = ("If the response is equivalent to the correct answer or contains all the "
              "intermediate steps to get the correct answer, you should also answer yes. If the "
              "response only contains a subset of the information required by the answer, "
              "answer no. ")
_LME_TAIL = ("\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model "
             "response correct? Answer yes or no only.")
LONGMEMEVAL_JUDGE_PROMPTS = {
    "multi-session": _LME_INTRO + _LME_STEPS + _LME_TAIL,
    "temporal-reasoning": _LME_INTRO + _LME_STEPS + (
        "In addition, do not penalize off-by-one errors for the number of days. If the question "
        "asks for the number of days/weeks/months, etc., and the model makes off-by-one errors "
        "(e.g., predicting 19 days when the answer is 18), the model's response is still "
        "correct. ") + _LME_TAIL,
    "knowledge-update": _LME_INTRO + (
        "If the response contains some previous information along with an updated answer, the "
        "response should be considered as correct as long as the updated answer is the "
        "required answer.") + _LME_TAIL,
    "single-session-preference": (
        "I will give you a question, a rubric for desired personalized response, and a response "
        "from a model. Please answer yes if the response satisfies the desired response. "
        "Otherwise, answer no. The model does not need to reflect all the points in the "
        "rubric. The response is correct as long as it recalls and utilizes the user's "
        "personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: "
        "{}\n\nIs the model response correct? Answer yes or no only."),
    "abstention": (
        "I will give you an unanswerable question, an explanation, and a response from a "
        "model. Please answer yes if the model correctly identifies the question as "
        "unanswerable. The model could say that the information is incomplete, or some other "
        "information is given but the asked information is not.\n\nQuestion: {}\n\n"
        "Explanation: {}\n\nModel Response: {}\n\nDoes the model correctly identify the "
        "question as unanswerable? Answer yes or no only."),
}
for _same in ("single-session-user", "single-session-assistant"):
    LONGMEMEVAL_JUDGE_PROMPTS[_same] = LONGMEMEVAL_JUDGE_PROMPTS["multi-session"]
LONGMEMEVAL_JUDGE_MAX_TOKENS = 10

DETERMINISTIC_JUDGE = {"name": "deterministic:accepted-answer-named", "version": 1,
                       "role": "judge"}
VERDICT_WORDS = {"chroma": ("true", "false"), "longmemeval": ("yes", "no")}


def judge_request(judge: str, question_type: str, abstention: bool, question: str,
                  answer: str, output: str) -> tuple[list[dict[str, str]], int]:
    """(messages, max_tokens) of one judge call."""
    if judge == "chroma":
        text = CHROMA_JUDGE_PROMPT.format(question=question, correct_answer=answer,
                                          output=output)
        return [{"role": "user", "content": text}], CHROMA_JUDGE_MAX_TOKENS
    template = LONGMEMEVAL_JUDGE_PROMPTS["abstention" if abstention else question_type] \
        if abstention or question_type in LONGMEMEVAL_JUDGE_PROMPTS \
        else LONGMEMEVAL_JUDGE_PROMPTS["multi-session"]
    return ([{"role": "user", "content": template.format(question, answer, output)}],
            LONGMEMEVAL_JUDGE_MAX_TOKENS)


def parse_verdict(reply: str | None, judge: str) -> bool | None:
    """The judge's verdict; None when its reply names neither word, or both."""
    if reply is None:
        return None
    yes, no = VERDICT_WORDS[judge]
    words = {w.lower() for w in re.findall(rf"\b({yes}|{no})\b", reply, re.IGNORECASE)}
    return None if len(words) != 1 else words.pop() == yes


def normalise(text: str) -> str:
    """Lower case, punctuation as spaces, one space between words."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def names_answer(output: str | None, accepted) -> bool:
    """The deterministic verdict: one accepted answer occurs in the reply as whole words."""
    text = f" {normalise(output or '')} "
    return any(f" {normalise(a)} " in text for a in accepted if normalise(a))


ABSTAINS = re.compile(
    r"\b(i (do not|don't|dont) (know|have|recall|remember)|not (been )?mentioned|"
    r"no (information|mention|record|answer)|not enough information|"
    r"(cannot|can't|can not|unable to) (be )?(determine|answer|tell|find|say|know)|"
    r"i'm not sure|i am not sure|not (specified|provided|stated|available)|"
    r"does(n't| not) (say|mention|specify|include)|insufficient information|"
    r"there is no (mention|information|record))\b", re.IGNORECASE)


def abstains(output: str | None) -> bool:
    """The reply declines to answer (a phrase detector, the same for every judge)."""
    return bool(ABSTAINS.search(output or ""))


# -- findings: the paired comparison -------------------------------------------------------
PAIRED_TEST = ("McNemar's exact test: a two-sided binomial test on the questions answered "
               "right in one condition only (focused vs full, the same questions)")
NAMED = 8  # sample ids named in a line before "and N more"


def _count(part, column: str) -> int:
    return int(part[column].sum()) if len(part) else 0


def paired(focused, full) -> dict:
    """Focused against full on questions scored in both: each accuracy with its Wilson
    interval, the gap (focused - full) with a paired bootstrap interval, and McNemar's p."""
    from reporting.analysis.stats import paired_rates

    return paired_rates(list(full), list(focused), ("full", "focused"))


def findings(frame) -> dict:
    """Per source: the paired comparison overall and by question type, abstentions apart
    from wrong answers per condition; judge replies neither verdict, named."""
    needed = ("params.source", "params.condition", "params.question_id", "scores.correct")
    if frame.empty or any(c not in frame for c in needed):
        return {}
    result: dict = {"paired_test": PAIRED_TEST, "sources": {}}
    lines = []
    ok = frame[frame["outcome"] == "ok"]
    for source, part in ok.groupby("params.source", sort=True):
        scored = part[part["scores.correct"].notna()].copy()
        scored["right"] = scored["scores.correct"].astype(bool)
        scored["declined"] = scored.get("scores.abstained", False)
        scored["declined"] = scored["declined"].fillna(False).astype(bool)
        summary = {**_paired_of(scored), "by_type": {}, "abstentions": {}}
        for kind, of_type in scored.groupby("params.question_type", sort=True):
            summary["by_type"][str(kind)] = _paired_of(of_type)
        for condition, group in scored.groupby("params.condition", sort=True):
            wrong = group[~group["right"]]
            summary["abstentions"][str(condition)] = {
                "scored": len(group), "wrong": len(wrong),
                "abstained": _count(wrong, "declined"),
                "answered_wrong": len(wrong) - _count(wrong, "declined")}
        result["sources"][str(source)] = summary
        lines += _lines(str(source), summary)
    if "details.judge_unparsable" in ok:
        unparsable = ok[ok["details.judge_unparsable"].fillna(False).astype(bool)]
        if len(unparsable):
            ids = sorted(unparsable["sample_id"])
            result["judge_unparsable"] = {"count": len(ids), "samples": ids}
            more = f" and {len(ids) - NAMED} more" if len(ids) > NAMED else ""
            lines.append(f"judge: {len(ids)} replies neither true nor false, not scored: "
                         f"{', '.join(ids[:NAMED])}{more}")
    result["lines"] = lines
    return result


def _paired_of(scored) -> dict:
    table = scored[scored["params.condition"].isin(("focused", "full"))].pivot_table(
        index="params.question_id", columns="params.condition", values="right",
        aggfunc="last")
    if not {"focused", "full"} <= set(table.columns):
        return paired([], [])
    both = table.dropna(subset=["focused", "full"])
    return paired([bool(v) for v in both["focused"]], [bool(v) for v in both["full"]])


def _rate(side: dict) -> str:
    low, high = side["ci"]
    return f"{side['correct']}/{side['n']} = {side['accuracy']:.3f} [{low:.3f}, {high:.3f}]"


def _gap(summary: dict) -> str:
    low, high = summary["gap_ci"]
    return (f"gap {summary['gap']:+.3f} [{low:+.3f}, {high:+.3f}], McNemar p = "
            f"{summary['p']:.3g} ({summary['only_focused']} right only focused, "
            f"{summary['only_full']} only full)")


def _lines(source: str, summary: dict) -> list[str]:
    if not summary["pairs"]:
        return [f"paired, {source}: no question scored both focused and full"]
    lines = [f"paired, {source}, {summary['pairs']} questions: focused {_rate(summary['focused'])}"
             f", full {_rate(summary['full'])}; {_gap(summary)}"]
    for kind, part in summary["by_type"].items():
        if part["pairs"]:
            lines.append(f"  {kind} ({part['pairs']}): focused {part['focused']['accuracy']:.3f}, "
                         f"full {part['full']['accuracy']:.3f}, {_gap(part)}")
    for condition in ("focused", "full"):
        counts = summary["abstentions"].get(condition)
        if counts and counts["wrong"]:
            lines.append(f"  {condition}: {counts['wrong']} wrong of {counts['scored']}: "
                         f"{counts['abstained']} abstained, {counts['answered_wrong']} answered "
                         "wrongly")
    return lines
