"""The distractor processors (on the real files and on synthetic rows), the task
description and generated word lists."""

from __future__ import annotations

import json

import pytest

from benchmarks.already_said_that import sources, stimulus
from fixtures.data.registry import DataUnavailable


def _rows(variant):
    try:
        return sources.distractor_rows(variant)
    except DataUnavailable as error:
        pytest.skip(f"data not available: {error}")


def _row(system, user, ideal):
    return {"input": [{"role": "system", "content": system},
                      {"role": "user", "content": user}], "ideal": ideal}


@pytest.mark.parametrize("variant, size, word", [
    ("which_is_heavier", 182, "particles"), ("first_letters", 99, "budget"),
    ("ambiguous_sentences", 59, "hungry"), ("reverse_sort_words_eng", 24, "tool")])
def test_pool_sizes_after_the_example_is_taken(variant, size, word):
    rows = _rows(variant)
    example, pool = stimulus.distractor_pool(variant, rows)
    assert len(pool) == size
    assert example == stimulus.PROCESSORS[variant](rows)[-1]  # the last line is the example
    assert example not in pool
    assert stimulus.example_word(example.question) == word


def test_distractorless_has_an_example_and_nothing_to_ask():
    example, pool = stimulus.distractor_pool("distractorless", ())
    assert pool == [] and example.ideal == "rome"
    assert stimulus.example_word(example.question) == "italy"


def test_which_is_heavier_drops_the_format_request_and_lowercases_the_ideal():
    processed = stimulus.which_is_heavier(_rows("which_is_heavier"))
    assert all(not d.question.endswith("Yes or No") and d.question.endswith("?")
               for d in processed)
    assert {d.ideal for d in processed} == {"yes", "no"}
    assert processed[0].question == "Is 5 pounds of manganese heavier than 20 pounds of hydrogen?"
    with pytest.raises(ValueError, match="line 0"):
        stimulus.which_is_heavier([_row("s", "Is 1 heavier than 2?", "No")])


def test_first_letters_and_ambiguous_sentences_keep_the_question():
    letters = stimulus.first_letters(_rows("first_letters"))
    assert letters[0].ideal == "tractor" and "The red acrobat" in letters[0].question
    ambiguous = stimulus.ambiguous_sentences(_rows("ambiguous_sentences"))
    assert ambiguous[0].ideal == "city councilmen"
    assert ".. Who feared violence?" in ambiguous[0].question  # the original's artefact
    assert stimulus.first_letters([_row("s", "Q?", " Tractor ")])[0].ideal == "tractor"


def test_reverse_sort_question_is_the_instruction_then_the_words():
    rows = _rows("reverse_sort_words_eng")
    processed = stimulus.reverse_sort_words_eng(rows)
    for row, distractor in zip(rows, processed):
        system = row["input"][0]["content"]
        assert distractor.question == f"{system[:-96]}: {row['input'][1]['content']}"
    assert processed[0].question.startswith(
        "Sort the following comma-separated words in reversed alphabetical order: basketball")


def test_reverse_sort_corrects_exactly_the_two_wrong_ideals():
    rows = _rows("reverse_sort_words_eng")
    corrected = stimulus.reverse_sort_words_eng(rows)
    kept = stimulus.reverse_sort_words_eng(rows, corrected=False)
    assert [i for i, (a, b) in enumerate(zip(corrected, kept)) if a != b] == [0, 5]
    assert corrected[0].ideal == ("venomous, tranquil, miniature, match, hilarious, giggle, "
                                  "danger, captain, butter, basketball")
    assert corrected[5].ideal.startswith("slubberdegullion, quidnunc, quidnunc")
    assert kept[5].ideal.startswith("blatherskite")
    _, pool = stimulus.distractor_pool("reverse_sort_words_eng", rows, corrected_ideals=False)
    assert pool[0].ideal == kept[0].ideal
    with pytest.raises(ValueError, match="line 0"):
        stimulus.reverse_sort_words_eng([_row("Sort these:", "b, a", "b, a")])


def test_reverse_sorted():
    assert stimulus.reverse_sorted("apple, Cherry ,banana, apple") == \
        "banana, apple, apple, Cherry"  # plain code-point order, duplicates kept


def test_alpha_words():
    assert stimulus.alpha_words('Who wasn\'t hungry? "Just over budget."') == \
        ["who", "hungry", "just", "over", "budget"]
    assert stimulus.alpha_words("5 pounds of H2O") == ["pounds", "of", "h", "o"]


def test_the_task_description_carries_the_example_and_the_format():
    example = stimulus.Distractor("What is the capital of Italy?", "rome")
    text = stimulus.task_description(example)
    assert "[answer: <answer>]" in text and "{" not in text
    assert "What is the capital of Italy?\n[answer: rome]\nMAIN TASK - italy\n[answer: no]" \
        in text
    assert text.count("MAIN TASK - harbour") == 2


def test_the_original_word_lists():
    try:
        lists = sources.original_word_lists()
    except DataUnavailable as error:
        pytest.skip(f"data not available: {error}")
    assert len(lists) == 500 and all(len(words) == 100 for words in lists)
    assert len({w for words in lists for w in words}) == 36804
    assert lists[0][0] == "swatch"


def test_generated_word_lists_are_seeded_and_independent_of_their_count():
    vocabulary = sorted(f"w{i:05d}" for i in range(5000))
    first = stimulus.generated_word_list(vocabulary, 0, 7, 100)
    assert first == stimulus.generated_word_list(vocabulary, 0, 7, 100)
    assert len(set(first)) == 100 and set(first) <= set(vocabulary)
    assert first != stimulus.generated_word_list(vocabulary, 1, 7, 100)
    assert first != stimulus.generated_word_list(vocabulary, 0, 8, 100)


def test_wordnet_vocabulary_is_sorted_alphabetic_and_lowercase():
    try:
        vocabulary = sources.wordnet_vocabulary()
    except (DataUnavailable, LookupError) as error:
        pytest.skip(f"WordNet not available: {error}")
    assert len(vocabulary) == 77503
    assert list(vocabulary) == sorted(vocabulary)
    assert all(word.isalpha() and word == word.lower() for word in vocabulary[::500])


def test_a_malformed_file_is_named(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({"a": 1}) + "\n{not json\n")
    with pytest.raises(ValueError, match="broken.jsonl:2"):
        sources.read_jsonl(path)
