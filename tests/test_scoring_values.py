"""Value normalisation: one spelling per value, on both sides of every match."""

from __future__ import annotations

import pytest

from memlab.scoring import canonical, contains, gold_present, normalize_answer, token_f1


@pytest.mark.parametrize("context", ["[2023-05-08] Maria: we signed the lease", "on May 8th, 2023 we signed",
                                     "signed 8 May 2023", "the 8th of May, 2023", "signed 2023/05/08",
                                     "signed Monday, 8 May, 2023"])
def test_a_full_date_gold_matches_every_unambiguous_spelling(context: str) -> None:
    assert contains(context, "8 May 2023")
    assert contains(context, "May 8, 2023")


def test_numeric_dates_are_read_only_when_unambiguous() -> None:
    assert contains("paid on 13/05/2023", "13 May 2023")  # 13 cannot be a month: day first
    assert contains("paid on 05/13/2023", "May 13, 2023")  # month first
    assert contains("paid on 05/05/2023", "5 May 2023")  # same either way
    assert not contains("paid on 04/05/2023", "4 May 2023")  # 4 April or 5 April? not read
    assert not contains("paid on 04/05/2023", "5 April 2023")
    assert contains("paid on 04/05/2023", "04/05/2023")  # the literal form still matches itself


def test_month_year_and_year_golds_match_finer_dates_but_not_other_dates() -> None:
    assert contains("[2023-05-08] moved", "May 2023")
    assert contains("moved on 8 May 2023", "2023")
    assert not contains("moved on 8 June 2023", "May 2023")
    assert not contains("moved in May 2024", "May 2023")
    assert not contains("moved in May", "8 May 2023")  # the year is missing: not the same value


def test_invalid_calendar_dates_are_not_dates() -> None:
    assert canonical("31 Feb 2023") != canonical("3 March 2023")
    assert "m02" not in canonical("31 Feb 2023")


def test_may_and_march_need_a_year_ordinal_or_of_to_be_months() -> None:
    assert canonical("you may 2 times") == "you may 2 times"
    assert canonical("may 5th") == canonical("5th of May") == "m05 d05"
    assert canonical("May 5, 2021") == "2021 m05 d05"


@pytest.mark.parametrize(("gold", "text"), [
    ("three", "she has 3 cats"), ("3", "she has three cats"), ("1,200", "about 1200 people"),
    ("1200", "about 1,200 people"), ("twenty-one", "she turned 21"), ("105", "one hundred and five pages"),
    ("1.5", "it took 1.50 hours"), ("50%", "a 50 percent discount"), ("2nd", "came 2 in the race"),
])
def test_numbers_match_in_any_spelling(gold: str, text: str) -> None:
    assert contains(text, gold)


def test_number_words_do_not_merge_separate_numbers_or_wrong_values() -> None:
    assert canonical("one two") == "1 2"
    assert canonical("ten one") == "10 1"
    assert not contains("she has 30 cats", "three")
    assert not contains("12 people", "1,200")


@pytest.mark.parametrize(("gold", "text"), [
    ("5 km", "ran 5 kilometres"), ("5 kilometers", "ran 5km"), ("2 kg", "weighs two kilograms"),
    ("90 minutes", "lasted 90 min"), ("3 hours", "a 3 hr drive"), ("6 feet", "6 ft tall"),
])
def test_units_written_out_match_their_symbols(gold: str, text: str) -> None:
    assert contains(text, gold)


def test_units_only_after_a_number_and_not_across_values() -> None:
    assert not contains("ran 5 miles", "5 km")
    assert canonical("the metre is a unit") == "metre is unit"  # no number before: a word, not a unit


def test_squad_normalisation_is_kept() -> None:
    assert normalize_answer("The Golden-Retriever!") == "golden retriever"
    assert contains("she adopted the Golden Retriever.", "a golden retriever")
    assert not contains("Lisbonne is not it", "Lisbon")


def test_token_f1_uses_value_normalised_tokens() -> None:
    assert token_f1("three kilometres", "3 km") == 1.0
    assert 0 < token_f1("a retriever", "golden retriever") < 1
    assert token_f1("Porto", "Lisbon") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "x") == 0.0


def test_gold_match_must_be_any_or_all() -> None:
    with pytest.raises(ValueError, match="gold_match"):
        gold_present("x", [["x"]], "some")


def test_a_month_name_gold_matches_dates_in_that_month_but_not_the_verb():
    assert contains("[2023-05-08] we moved", "May")
    assert contains("we moved in May 2023", "May")
    assert contains("the wedding is in june", "June")
    assert not contains("you may go now", "May")
    assert not contains("we moved in June 2023", "May")


def test_word_only_lines_take_the_fast_path_with_the_full_patterns_tokens() -> None:
    """A line without a digit, a percent sign or a month name is tokenised as its letter runs, not
    through every branch of the token pattern, and the month branches are skipped at a word that
    starts no month name; the tokens must be the full pattern's, on real dataset lines and on
    made-up lines full of near-dates, near-months and odd characters."""
    import glob
    import random
    import unicodedata

    from memlab.datasets.io import load_dataset
    from memlab.harness.units import turn_events
    from memlab.scoring import values as v

    lines = []
    for path in sorted(glob.glob("datasets/suites/*.yaml")):
        if "long_horizon" not in path:
            ds = load_dataset(path)
            events = [e for c in ds.conversations for e in turn_events(c)]
            lines += [e.turn.text for e in events]
            lines += [f"[{e.timestamp:%Y-%m-%d %H:%M}] {e.turn.speaker or 'Ana'}: {e.turn.text}" for e in events[:300]]  # as contexts show them
    rng = random.Random(3)
    pieces = ["May 5", "may", "MAY", "5th of March 2023", "2023-05-08", "08/05/2023", "1,200.50", "50%", "５０％",
              "Sept. 3, 2021", "june", "mayor", "marching", "Decemberist", "Auguſt", "the 3rd", "twenty one", "x2",
              "a_b", "café", "naïve", "Ünïcode", "١٢٣", "mar.", "Oct.12", "word", "and", "of", ",", "\n", "  ", "’s",
              "[x]", "(May 2020)", "a:b", "Dec.:", "12]", "[5 June", "x_1", "'s", '"Oct"', "5th-of", "#3", "May:"]
    lines += [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(5000)]
    import re

    unguarded = re.compile(v._TOKEN.pattern.replace(v._MONTH_START, ""), re.IGNORECASE)  # the month lookahead only prunes
    assert unguarded.pattern != v._TOKEN.pattern
    needs = re.compile(r"[\d%]|" + "|".join(v._FULL_MONTHS), re.IGNORECASE)  # and the first-letter one
    assert needs.pattern != v._NEEDS_PATTERNS.pattern
    fast = 0
    for line in lines:
        line = unicodedata.normalize("NFKC", line)
        assert v._raw_tokens(line) == v._pattern_tokens(line), line
        assert [(m.lastgroup, m.groups()) for m in v._TOKEN.finditer(line)] == [
            (m.lastgroup, m.groups()) for m in unguarded.finditer(line)], line
        assert (v._NEEDS_PATTERNS.search(line) is None) == (needs.search(line) is None), line
        fast += v._NEEDS_PATTERNS.search(line) is None
    assert 0.3 * len(lines) < fast < len(lines)  # both paths taken, often
