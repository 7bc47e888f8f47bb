"""The turn generator and the loop: probabilities, adversarial words, what counts as shown."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.already_said_that.conversation import (
    Conversation, estimate_prompt_tokens)
from benchmarks.already_said_that.stimulus import alpha_words

from .helpers import DISTRACTORS, WORDS, coin, conversation, oracle, play_through, played

RUNS = 200  # perfect conversations of 100 turns: 20,000 turns


def _perfect_logs(**options):
    return [played(seed, oracle, **options).log for seed in range(RUNS)]


def test_a_perfect_player_lasts_every_turn():
    transcript = played(1, oracle)
    assert transcript.ended_by == "max_turns"
    assert len(transcript.log) == 100 and all(entry["correct"] for entry in transcript.log)


def test_a_third_of_turns_are_distractors():
    turns = [entry for log in _perfect_logs() for entry in log]
    share = sum(entry["kind"] == "distractor" for entry in turns) / len(turns)
    assert abs(share - 1 / 3) < 0.02  # sd is 0.0033 for 20,000 turns


def test_main_words_are_adversarial_half_the_time_then_new_or_repeat_half_each():
    adversarial = eligible = repeats = choices = 0
    for log in _perfect_logs():
        pool_ready = False
        for entry in log:
            if entry["kind"] == "distractor":
                pool_ready = True
                continue
            if pool_ready:  # the pool is non-empty once any distractor was asked
                eligible += 1
                adversarial += entry["source"] == "adversarial"
            if entry["source"] != "adversarial" and any(e["kind"] == "main" for e in log[
                    :log.index(entry)]):
                choices += 1
                repeats += entry["source"] == "repeat"
    assert abs(adversarial / eligible - 0.5) < 0.03
    assert abs(repeats / choices - 0.5) < 0.03


def test_adversarial_words_come_from_earlier_distractor_questions_and_answers():
    for log in _perfect_logs():
        said: set[str] = set()
        for entry in log:
            if entry["kind"] == "distractor":
                said.update(alpha_words(entry["text"]))
                said.update(alpha_words(entry["answer"] or ""))
            elif entry["source"] == "adversarial":
                assert entry["text"] in said


def test_without_distractors_no_word_is_adversarial_and_yes_no_are_never_asked():
    for seed in range(50):
        log = played(seed, oracle, distractors=[]).log
        assert all(entry["kind"] == "main" and entry["source"] != "adversarial"
                   for entry in log)
        assert not {"yes", "no"} & {entry["text"] for entry in log}


def test_the_original_pool_asks_the_players_own_yes_and_no():
    asked = {entry["text"] for seed in range(50)
             for entry in played(seed, oracle, distractors=[],
                                 adversarial_pool="original").log}
    assert {"yes", "no"} <= asked


def test_no_adversarial_pool_when_disabled():
    logs = _perfect_logs(adversarial_pool="none")
    assert all(entry.get("source") != "adversarial" for log in logs for entry in log)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), player=st.integers(0, 10**6),
       pool=st.sampled_from(["distractors", "original", "none"]),
       with_distractors=st.booleans())
def test_no_word_counts_as_shown_before_it_was_shown(seed, player, pool, with_distractors):
    dialogue = conversation(seed, adversarial_pool=pool,
                            distractors=DISTRACTORS if with_distractors else [])
    rng = random.Random(player)

    def respond(messages):  # mostly right, sometimes wrong: long and short dialogues
        text = messages[-1]["content"]
        if rng.random() < 0.05:
            return "[answer: maybe]"
        if text.startswith("MAIN TASK - "):
            truth = text.removeprefix("MAIN TASK - ") in dialogue.shown
            return f"[answer: {'yes' if truth != (rng.random() < 0.05) else 'no'}]"
        return "[answer: whatever words]"

    transcript = play_through(dialogue, respond, max_turns=100)
    shown: set[str] = set()
    for entry in transcript.log:
        if entry["kind"] == "main":
            assert entry["expected"] == ("yes" if entry["text"] in shown else "no")
            shown.add(entry["text"])
    assert set(dialogue.shown) == {e["text"] for e in transcript.log
                                   if e["kind"] == "main" and e["correct"]}


def test_distractors_cycle_through_the_shuffled_queue():
    questions = [e["text"] for e in played(3, oracle).log if e["kind"] == "distractor"]
    cycle = len(DISTRACTORS)
    assert len(questions) > 2 * cycle
    assert sorted(questions[:cycle]) == sorted(d.question for d in DISTRACTORS)
    assert questions[cycle:2 * cycle] == questions[:cycle]


def test_the_same_seed_gives_the_same_dialogue():
    first, second = played(11, oracle), played(11, oracle)
    assert first.messages == second.messages
    assert played(12, oracle).messages != first.messages


def test_words_are_lower_cased_and_only_the_samples_words_are_new():
    dialogue = Conversation([w.upper() for w in WORDS], [], random.Random(0))
    transcript = play_through(dialogue, oracle(dialogue), max_turns=100)
    assert {e["text"] for e in transcript.log} <= set(WORDS)


def test_every_turn_resends_the_whole_history():
    seen_lengths = []

    def respond(messages):
        seen_lengths.append(len(messages))
        return "[answer: no]" if len(messages) == 2 else "[answer: whatever]"

    transcript = play_through(conversation(0), respond, max_turns=5)
    assert seen_lengths[0] == 2  # the task description and the first turn
    assert seen_lengths == [2 + 2 * i for i in range(len(seen_lengths))]
    assert transcript.messages[0] == {"role": "system", "content": "task"}


def test_the_estimate_follows_the_served_tokenizer():
    assert estimate_prompt_tokens(100, None, None) == 100
    assert estimate_prompt_tokens(200, 150, 100) == 300  # served 1.5x o200k
    assert estimate_prompt_tokens(200, 50, 100) == 200  # never below the o200k count


def test_a_coin_lasts_as_long_as_the_analytic_baseline():
    from benchmarks.already_said_that.scoring import random_baseline_turns, sample_scores

    runs = 3000
    turns = [sample_scores(t.log, t.ended_by)["num_turns"]
             for t in (played(seed, lambda d, s=seed: coin(s)) for seed in range(runs))]
    mean = sum(turns) / runs
    # The geometric law's sd is sqrt(6) = 2.45 for p = 1/3: the mean's is 0.045.
    assert abs(mean - random_baseline_turns(100, 1 / 3)) < 4 * 2.45 / runs ** 0.5
    bare = [sample_scores(t.log, t.ended_by)["num_turns"]
            for t in (played(seed, lambda d, s=seed: coin(s), distractors=[])
                      for seed in range(runs))]
    assert abs(sum(bare) / runs - random_baseline_turns(100, 0.0)) < 4 * 1.42 / runs ** 0.5
