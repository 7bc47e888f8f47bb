"""The fixed continuation point, windows growing backwards, the ground truth, the budget."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from benchmarks.continuation import stimulus, text as texts


def novel(sentences: int = 1500, seed: int = 0) -> texts.Document:
    rng = random.Random(seed)
    words = "the a old house man river quiet spoke slowly dark morning letter Mr. Emma".split()
    paragraphs, sentence_list = [], []
    for i in range(sentences):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))
        sentence_list.append(body[0].upper() + body[1:] + rng.choice([".", "!", "?", '."']))
        if i % 7 == 6:
            paragraphs.append(" ".join(sentence_list))
            sentence_list = []
    body = "\n\n".join(paragraphs + [" ".join(sentence_list)] if sentence_list else paragraphs)
    return texts.Document("synthetic", "synthetic", body, len(body), False)


@pytest.fixture(scope="module")
def source():
    return stimulus.place(novel(), requested_point=12000, max_tokens=128)


def test_point_is_a_sentence_end_after_the_request(source):
    body = source.document.text
    assert source.point_char in texts.sentence_ends(body)
    assert source.point_tokens >= 12000 and not source.clamped
    assert body[source.point_char:].lstrip().startswith(source.truth)


def test_truth_is_within_budget_and_ends_a_sentence(source):
    from fixtures.tokens.tokenizer import o200k
    assert 0 < o200k().count(source.truth) <= 128
    assert source.truth[-1] in '.!?"'


def test_every_window_ends_at_the_point_and_grows_backwards(source):
    body = source.document.text[:source.point_char]
    windows = [stimulus.window(source, budget) for budget in (200, 900, 3000, 11000)]
    for small, big in zip(windows, windows[1:]):
        assert not small.skip_reason and not big.skip_reason
        assert body.endswith(small.text) and big.text.endswith(small.text)
        assert big.start_char < small.start_char


def test_windows_start_on_a_sentence_start_and_fit_the_budget(source):
    from fixtures.tokens.tokenizer import o200k
    body = source.document.text
    for budget in (150, 700, 5000):
        window = stimulus.window(source, budget)
        before = body[:window.start_char].rstrip()
        assert window.start_char == 0 or before.endswith((".", "!", "?", '"'))
        assert o200k().count(window.text) <= budget + 1


@settings(max_examples=25, deadline=None)
@given(st.integers(128, 11000), st.integers(128, 11000))
def test_window_suffix_property(source, a, b):
    small, big = sorted((a, b))
    assert stimulus.window(source, big).text.endswith(stimulus.window(source, small).text)


def test_too_small_or_too_big_tiers_are_skipped_with_reasons(source):
    assert "fewer than" in stimulus.window(source, 50).skip_reason
    assert "never repeated" in stimulus.window(source, source.point_tokens + 1).skip_reason


def test_short_text_moves_the_point_earlier_and_says_so():
    document = novel(sentences=200)
    placed = stimulus.place(document, requested_point=10**6, max_tokens=128)
    assert placed.clamped and placed.report()["continuation_point_clamped"]
    assert placed.truth


def test_budget_leaves_room_for_output_instruction_and_another_tokenizer():
    budget = stimulus.text_budget(8192, 512, 1.1)
    room = 8192 - 512 - stimulus.instruction_tokens() - stimulus.TEMPLATE_ALLOWANCE
    assert budget == int(room / 1.1)
    assert stimulus.text_budget(1024, 1024, 1.0) == 0


def test_prompt_is_text_then_instruction():
    assert stimulus.prompt("Once.") == "Once.\n\n" + stimulus.INSTRUCTION


def test_same_inputs_same_stimulus():
    one = stimulus.place(novel(seed=3), 5000, 128)
    two = stimulus.place(novel(seed=3), 5000, 128)
    assert stimulus.window(one, 2000) == stimulus.window(two, 2000) and one.truth == two.truth


# -- tiers in the server's own tokens (--tokenizer server) ----------------------------------
def test_a_tier_in_the_servers_tokens_fills_its_context_as_the_server_counts():
    from tests.doubles.scripted_server import ScriptedServer, ToyTokenizer
    from fixtures.tokens.tokenizer import make_unit

    source = stimulus.place(novel(), requested_point=12000, max_tokens=128)
    toy = ToyTokenizer()
    with ScriptedServer(tokenizer="toy") as server:
        unit = make_unit("server", base_url=server.base_url, model="scripted")
        for context in (1024, 4096):
            budget = stimulus.unit_text_budget(context, 128, unit)
            window = stimulus.unit_window(source, budget, unit)
            served = toy.count(ToyTokenizer.render(
                [{"role": "user", "content": stimulus.prompt(window.text)}]))
            assert window.tokens == toy.count(window.text) <= budget
            assert context - 128 - 150 < served <= context - 128  # within a sentence
            assert window.start_char in source.window_starts
        too_big = stimulus.unit_window(source, 10**6, unit)
        assert too_big.text == "" and "fewer than the tier's" in too_big.skip_reason
