"""The result evaluator on realistic outputs, traps included."""

import pytest

from benchmarks.re3.scoring import (evaluate, extract_letter, extract_number, extract_secret,
                                    gsm8k_gold, last_boxed)

GSM8K = [  # (response, extracted, gold, correct)
    ("She sells 9 eggs for $2 each, so 9 * 2 = 18.\n\\boxed{18}", "18", "18", True),
    ("The total is \\boxed{1,200.50} dollars.", "1200.50", "1200.5", True),
    ("It costs $1,200.50 in total.", "1200.50", "1200.5", True),
    ("First 3 apples, then 4 more, so 7. Then 7 * 2 = 14 apples", "14", "14", True),
    ("The answer is 42. Check: 40 + 2 = 42, and 6 * 7 = 42 too, not 41.", "42", "42", True),
    ("The answer is: $-5, since 10 - 15 = -5", "-5", "-5", True),
    ("16-3-4=9 eggs remain", "9", "9", True),  # the minus signs are operators
    ("So the answer is 3/4 of a cup", "3/4", "0.75", True),
    ("\\boxed{\\frac{3}{4}}", "3/4", "0.75", True),
    ("He has 5 apples and buys 3 more, so he has 8. \\boxed{8}. Later 12 more.", "8", "8", True),
    ("The answer is 17.0001", "17.0001", "17", True),  # within 1e-3
    ("The answer is 17.01", "17.01", "17", False),
    ("Let me list them: 1,2,3", "3", "3", True),  # "1,2,3" is not 123
    ("I cannot solve this problem.", None, "3", False),
    ("", None, "3", False),
    ("\\boxed{} so the final answer is 5", "5", "5", True),  # an empty box falls through
]


@pytest.mark.parametrize("response, extracted, gold, correct", GSM8K)
def test_gsm8k_extraction_and_comparison(response, extracted, gold, correct):
    evaluation = evaluate("gsm8k", response, gold)
    assert evaluation.extracted == extracted
    assert evaluation.correct is correct


def test_gsm8k_gold_and_helpers():
    assert gsm8k_gold("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs.\n#### 18") == "18"
    assert gsm8k_gold("...\n#### 1,000") == "1000"
    with pytest.raises(ValueError):
        gsm8k_gold("no marker")
    assert last_boxed("\\boxed{1} then \\boxed{\\frac{1}{2}}") == "\\frac{1}{2}"
    assert last_boxed("truncated \\boxed{12") == "12"
    assert extract_number("answer is 3 and then the last 9") == "3"


MMLU = [  # (response, letter or None)
    ("Answer: C", "C"),
    ("Let me think. B looks right at first, but the answer is D.", "D"),
    ("The answer is (C)", "C"),
    ("The correct answer is option B, because ...", "B"),
    ("I think it is A.\nAnswer: B", "B"),  # the "Answer:" line wins over a mention
    ("answer: $A$", "A"),
    ("\\boxed{D}", "D"),
    ("C", "C"),
    ("(B)", "B"),
    ("B.", "B"),
    ("C. Huntington disease", "C"),
    ("A) 4", "A"),
    ("Answer: Due to the structure of DNA ...", None),  # "Due" is not the letter D
    ("The answer is a bit unclear.", None),  # lower-case "a" is a word, not a letter
    ("I am not sure which option is correct.", None),  # unextracted, not a guessed letter
    ("", None),
    ("The answer is E", None),
]


@pytest.mark.parametrize("response, letter", MMLU)
def test_mmlu_letter_extraction(response, letter):
    assert extract_letter(response) == letter


def test_mmlu_correctness():
    assert evaluate("mmlu", "The answer is (C)", "C").correct
    assert not evaluate("mmlu", "The answer is (B)", "C").correct
    unextracted = evaluate("mmlu", "No idea.", "C")
    assert unextracted.extracted is None and not unextracted.correct


NIAH = [  # (response, extracted)
    ("The secret number is 4821937.", "4821937"),
    ("4821937", "4821937"),
    ("The secret number is 4 8 2 1 9 3 7.", "4821937"),  # a B2 echo
    ("In chapter 3, on page 12, the secret number is 4,821,937.", "4821937"),
    ("There were 12 ships and 4821937 was the number.", "4821937"),
    ("I could not find it.", None),
]


@pytest.mark.parametrize("response, extracted", NIAH)
def test_secret_number_extraction(response, extracted):
    assert extract_secret(response) == extracted


def test_niah_correctness_by_length_label():
    assert evaluate("niah_8k", "The secret number is 4821937.", "4821937").correct
    assert not evaluate("niah_1k", "The secret number is 4821938.", "4821937").correct
