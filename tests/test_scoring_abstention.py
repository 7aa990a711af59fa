"""Refusal detection: general refusal shapes, and sentences that merely contain the words."""

from __future__ import annotations

import pytest

from memlab.scoring import is_abstention

REFUSALS = [
    "I don't know.", "I don't know what car you bought.", "I'm not sure.", "I'm not sure which one you picked.",
    "There's no record of that in my notes.", "You haven't told me your sister's name.", "You haven't chosen a venue yet.",
    "I have no information about your trip.", "No information about that.", "I can't tell from what you've shared.",
    "I can't tell.", "That hasn't been mentioned.", "It was never mentioned.", "Not sure", "unknown", "",
    "I do not remember that", "Sorry, I don't have that information.", "I don't have any record of a dentist appointment.",
    "It can't be determined from our chats.", "We haven't discussed it, so I couldn't say.", "I'm not certain about that.",
    "I have no idea.", "I really don't know", "I’m not sure, honestly.",
]

NOT_REFUSALS = [
    "She's not sure yet, but she chose Lisbon.", "I don't know Porto well, but you moved to Lisbon in May.",
    "She said \"I don't know\" at first, then picked the red one.", "Ana has no idea you moved to Lisbon.",
    "You moved to Lisbon.", "The store has no information desk, so you went to Porto.", "Lisbon — you mentioned it twice.",
    "He wasn't chosen for the team; Ana was.", "You told me you are not sure about Porto, so you picked Lisbon.",
    "The movie 'I Don't Know' is your favourite.", "You never told Ana, but you told me: Berlin.", "No, it's Berlin.",
    "None of them: you picked the green one.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_abstentions(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize("text", NOT_REFUSALS)
def test_answers_containing_refusal_words_are_not_abstentions(text: str) -> None:
    assert not is_abstention(text)
