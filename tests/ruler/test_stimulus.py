"""Every synthetic task built at two RULER lengths, checked against the spec (ruler.md 3):
needle counts and sentence forms, key and value types, noise lines, the chain's order, word
frequencies, the templates byte for byte, and the length fitted per sample: prompt +
tokens_to_generate <= L, with one more increment over L (in o200k, the tokenizer of these
tests)."""

from __future__ import annotations

import collections
import functools
import itertools
import os
import re
import statistics

import pytest

from benchmarks.ruler import fitting, grid, stimulus, words
from benchmarks.ruler.grid import RulerSample
from fixtures.tokens.tokenizer import o200k

LENGTHS = (4096, 8192)
SYNTHETIC = [name for name, task in grid.TASKS.items() if not task.needs_data]
NUMBER = r"[1-9]\d{6}"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
WORD_KEY = r"[a-z]+(?:-[a-z]+)+"
# "1. word 2. creme brulee ...": a list word can hold a space (wonderwords' "creme brulee")
ENTRY = re.compile(r"(\d+)\. (.+?)(?= \d+\. |$)")
TYPES = {"numbers": NUMBER, "uuids": UUID, "words": WORD_KEY}


@functools.lru_cache(maxsize=None)
def built(task: str, length: int, index: int = 0) -> fitting.Fitted:
    """Fitted per sample: the closest fit (RULER's own procedure: tests/ruler/test_fitting.py)."""
    return fitting.build(RulerSample(task, length, index), o200k(), procedure="per-sample")


def maker_of(task: str, length: int, index: int = 0):
    sample = RulerSample(task, length, index)
    return fitting._maker(task, length, sample.seed, index, o200k(), None)


def needles(text: str, value_type: str) -> list[tuple[str, str]]:
    pattern = (rf"One of the special magic {value_type} for (\S+) is: (\S+)\.")
    return re.findall(pattern, text)


@pytest.mark.parametrize("task", SYNTHETIC)
@pytest.mark.parametrize("length", LENGTHS)
def test_the_prompt_fits_its_length_within_one_increment(task, length):
    fitted = built(task, length)
    spec = grid.TASKS[task]
    tokens = o200k().count(fitted.prompt.text)
    assert tokens == fitted.tokens
    assert tokens + spec.tokens_to_generate <= length
    one_more = maker_of(task, length).prompt(fitted.size + stimulus.increment(spec, length))
    assert o200k().count(one_more.text) + spec.tokens_to_generate > length


@pytest.mark.parametrize("task", [t for t in SYNTHETIC if t.startswith("niah")])
@pytest.mark.parametrize("length", LENGTHS)
def test_niah_needles_keys_values_and_template(task, length):
    spec = grid.TASKS[task]
    prompt = built(task, length).prompt
    found = needles(prompt.input, spec.value_type)
    keys = collections.Counter(key for key, _ in found)
    if spec.haystack == "needle":  # every line is a needle: one key is the asked one
        assert len(found) == prompt.input.count("\n") - 1
        asked = [key for key in keys if key in prompt.answer_prefix]
        assert len(asked) == 1 and keys[asked[0]] == 1
        assert len(found) == built(task, length).size + 1
    else:
        assert len(found) == spec.keys * spec.values
        assert len(keys) == spec.keys and set(keys.values()) == {spec.values}
    for key, value in found:
        assert re.fullmatch(TYPES[spec.key_type], key), key
        assert re.fullmatch(TYPES[spec.value_type], value), value
    assert len(prompt.outputs) == spec.queries * spec.values
    by_key = collections.defaultdict(list)
    for key, value in found:
        by_key[key].append(value)
    query = prompt.answer_prefix.split(" for ", 1)[1].removesuffix(
        " mentioned in the provided text " + ("is" if len(prompt.outputs) == 1 else "are"))
    asked_keys = re.split(r", and |, ", query)
    assert len(asked_keys) == spec.queries
    # the asked keys' values (in the order drawn; the needles are in a fixed shuffled order)
    assert sorted(prompt.outputs) == sorted(v for key in asked_keys for v in by_key[key])
    context = needle_free(prompt.input, spec)
    expected = stimulus.singular(stimulus.NIAH_TEMPLATE) if len(prompt.outputs) == 1 \
        else stimulus.NIAH_TEMPLATE
    kind = spec.value_type[:-1] if len(prompt.outputs) == 1 else spec.value_type
    assert prompt.input == expected.format(type_needle_v=kind, context=context_of(prompt),
                                           query=query)
    assert prompt.answer_prefix == (stimulus.singular(stimulus.NIAH_PREFIX)
                                    if len(prompt.outputs) == 1 else stimulus.NIAH_PREFIX
                                    ).format(type_needle_v=kind, query=query)
    if spec.haystack == "noise":
        assert set(context.split("\n")) == {stimulus.NOISE}
        assert len(context.split("\n")) == built(task, length).size


def context_of(prompt: stimulus.Prompt) -> str:
    head, _, rest = prompt.input.partition("afterwards.\n")
    return rest[:rest.rindex("\nWhat ")]


def needle_free(text: str, spec: grid.Task) -> str:
    context = re.sub(r"One of the special magic \w+ for \S+ is: \S+\.(\n|(?= )|$)", "",
                     text.split("afterwards.\n", 1)[1].rsplit("\nWhat ", 1)[0])
    return context.strip("\n")


def test_the_exact_niah_template_of_the_spec():
    singular = stimulus.singular(stimulus.NIAH_TEMPLATE + stimulus.NIAH_PREFIX)
    assert singular.format(type_needle_v="number", context="{context}", query="{query}") == (
        "A special magic number is hidden within the following text. Make sure to memorize it. "
        "I will quiz you about the number afterwards.\n{context}\nWhat is the special magic "
        "number for {query} mentioned in the provided text? The special magic number for "
        "{query} mentioned in the provided text is")


@pytest.mark.parametrize("length", LENGTHS)
def test_the_essay_haystack_holds_needles_between_whole_sentences(length):
    prompt = built("niah_multikey_1", length).prompt
    text = context_of(prompt)
    found = needles(text, "numbers")
    assert len(found) == 4
    for key, value in found:
        sentence = f"One of the special magic numbers for {key} is: {value}."
        before = text[:text.index(sentence)]
        assert before == "" or before.endswith(" ")  # joined by single spaces
    words_in = len(re.sub(r"One of the special magic numbers for \S+ is: \d+\.", "",
                          text).split())
    assert words_in == built("niah_multikey_1", length).size


def test_the_depths_are_rulers_forty():
    assert stimulus.DEPTHS == (0, 3, 5, 8, 10, 13, 15, 18, 21, 23, 26, 28, 31, 33, 36, 38, 41,
                               44, 46, 49, 51, 54, 56, 59, 62, 64, 67, 69, 72, 74, 77, 79, 82,
                               85, 87, 90, 92, 95, 97, 100)


@pytest.mark.parametrize("length", LENGTHS)
def test_vt_chain_in_order_between_noise_lines_after_the_one_shot(length):
    prompt = built("vt", length).prompt
    example, main = prompt.input.split("\n\nMemorize and track", 1)
    main = "Memorize and track" + main
    assert example.startswith("Memorize and track the chain(s)")
    assert o200k().count(example) <= stimulus.VT_EXAMPLE_TOKENS + 20  # with its answer
    value = re.search(r"assigned the value (\d{5}) in the text above", main).group(1)
    assert prompt.answer_prefix == stimulus.VT_PREFIX.format(num_v=5, query=value)
    lines = main.split("\n\n", 1)[1].rsplit("\nQuestion:", 1)[0].split("\n")
    statements = [line for line in lines if line != stimulus.NOISE]
    names = list(prompt.outputs)
    assert len(names) == 5 and len(set(names)) == 5
    assert all(re.fullmatch(r"[A-Z]{5}", name) for name in names)
    assert statements == [f"VAR {names[0]} = {value}"] + [
        f"VAR {names[j + 1]} = VAR {names[j]} " for j in range(4)]
    assert len(lines) - 5 == built("vt", length).size
    # the example: 3-letter names, its own 5-digit value, its answer after "they are: "
    names_shown = example.rsplit("they are: ", 1)[1].split()
    assert len(names_shown) == 5 and all(re.fullmatch(r"[A-Z]{3}", n) for n in names_shown)
    assert "12345" not in example
    assert f"they are:  {' '.join(names_shown)}" in example


@pytest.mark.parametrize("length", LENGTHS)
def test_cwe_ten_words_thirty_times_the_rest_three_times(length):
    prompt = built("cwe", length).prompt
    example, main = prompt.input.rsplit("\nBelow is a numbered list", 1)
    listing = main.split("most often.\n", 1)[1].rsplit("\nQuestion:", 1)[0]
    entries = ENTRY.findall(listing)
    assert [int(i) for i, _ in entries] == list(range(1, len(entries) + 1))
    counts = collections.Counter(word for _, word in entries)
    common = set(prompt.outputs)
    assert len(common) == 10 and all(counts[word] == 30 for word in common)
    assert {counts[w] for w in counts if w not in common} == {3}
    assert len(counts) == built("cwe", length).size
    assert prompt.answer_prefix == stimulus.CWE_PREFIX
    assert main.endswith("Question: What are the 10 most common words in the above list?")
    # the one-shot: 40 words, 10 of them x10 and 30 x3, then its answer
    shot = collections.Counter(w for _, w in ENTRY.findall(example.split(
        "most often.\n", 1)[1].split("\nQuestion:")[0]))
    assert sorted(shot.values()) == [3] * 30 + [10] * 10
    answer = ENTRY.findall(example.rsplit(stimulus.CWE_PREFIX + " ", 1)[1])
    assert [int(i) for i, _ in answer] == list(range(1, 11))
    assert {w for _, w in answer} == {w for w, c in shot.items() if c == 10}


def test_cwe_under_4k_uses_rulers_small_repeats():
    prompt = built("cwe", 2048).prompt
    listing = prompt.input.rsplit("most often.\n", 1)[1].rsplit("\nQuestion:", 1)[0]
    counts = collections.Counter(w for _, w in ENTRY.findall(listing))
    assert {counts[w] for w in prompt.outputs} == {6}
    assert {c for w, c in counts.items() if w not in prompt.outputs} == {1}


@pytest.mark.parametrize("length", LENGTHS)
def test_fwe_ranks_two_to_four_are_the_outputs(length):
    fitted = built("fwe", length)
    prompt = fitted.prompt
    text = prompt.input.split("coded words. ", 1)[1].rsplit("\nQuestion:", 1)[0]
    counts = collections.Counter(text.split(" "))
    assert counts.most_common(1)[0][0] == "..."  # rank 1 is the noise
    ranked = [word for word, _ in counts.most_common() if word != "..."]
    assert set(ranked[:3]) == set(prompt.outputs)
    assert min(counts[w] for w in prompt.outputs) > max(
        [counts[w] for w in ranked[3:]] or [0])
    assert all(re.fullmatch(r"[a-z]{6}", word) for word in ranked)
    expected = stimulus.fwe_counts(fitted.size, (length - 50) // 50)
    assert sorted(counts.values(), reverse=True) == sorted((c for c in expected if c), reverse=True)
    assert prompt.answer_prefix == stimulus.FWE_PREFIX


def test_fwe_counts_follow_zeta_two():
    counts = stimulus.fwe_counts(10_000, 100)
    assert list(counts[:5]) == [6079, 1519, 675, 379, 243]


def test_word_keys_are_adjective_noun_pairs_uniform_over_distinct_strings():
    import random

    adjectives = set(words.wonderwords_list("adjectivelist.txt"))
    nouns = set(words.wonderwords_list("nounlist.txt"))
    rng = random.Random(3)
    for _ in range(200):
        key = words.random_key_word(rng)
        assert any(key[:i] in adjectives and key[i + 1:] in nouns
                   for i, c in enumerate(key) if c == "-")
    assert len(words.wonderwords_list("adjectivelist.txt")) == 912  # wonderwords 2.2.0
    assert len(words.wonderwords_list("nounlist.txt")) == 6786
    assert len(words.cwe_vocabulary()) == 8169


def test_a_sample_is_the_same_however_it_was_fitted():
    """Reproducible: the prompt is a function of (sample, n), not of the search's path."""
    fitted = built("niah_multivalue", 4096, index=3)
    again = maker_of("niah_multivalue", 4096, 3).prompt(fitted.size)
    assert again == fitted.prompt
    assert built("niah_multivalue", 4096, 4).prompt != fitted.prompt


@pytest.mark.parametrize("task", SYNTHETIC)
def test_prefix_groups_are_the_tasks_whose_haystack_is_one_text(task):
    """A task's samples declare a prefix group (fixtures/engine/prefix.py, --plan's cacheable) only
    where their prompts do start alike, and the declared share is about where the first
    needle stands (12 samples at 4k)."""
    texts = [built(task, 4096, index).prompt.text for index in range(12)]
    shared = max(len(os.path.commonprefix([a, b])) / len(a)
                 for a, b in itertools.combinations(texts, 2))
    sample = RulerSample(task, 4096, 0)
    if sample.prefix_group is None:
        assert shared < 0.05 and sample.prefix_share == 0
        return
    assert shared > 0.25
    first_needle = statistics.mean(t.find("One of the special magic") / len(t) for t in texts)
    assert sample.prefix_share == pytest.approx(first_needle, abs=0.2)
