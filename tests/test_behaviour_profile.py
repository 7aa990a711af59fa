"""The offline model's behaviour profile (issue 26): typed and validated, part of the model's
identity, and each knob acting inside the mechanism it names as a seeded decision per item.

The texts here are made up for the test (no evaluation data): the knobs are mechanism-level
probabilities, so what is checked is that each one moves its mechanism and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memlab.harness.config import ConfigError, validate_config
from memlab.llm.base import make_model
from memlab.offline import agent, answer, slots, summary
from memlab.llm.profile_file import load_profile
from memlab.offline.behaviour import DEFAULT, KNOBS, Behaviour, ProfileError, chance, parse_profile
from memlab.offline.extraction import extract_turn
from memlab.offline.similarity import Similarity
from memlab.offline.version import model_id

SIM = Similarity(None)
CITIES = ["Bergen", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lima", "Riga", "Graz", "Turin"]


def _b(**knobs: float | None) -> Behaviour:
    return Behaviour(DEFAULT.with_knobs({k.replace("__", "."): v for k, v in knobs.items()}), 0)


# ---- the profile as a typed, validated value --------------------------------------------------

def test_a_profile_file_is_validated_naming_file_line_knob_and_close_match(tmp_path: Path):
    bad = tmp_path / "p.yaml"
    bad.write_text("extraction:\n  user_recall: 0.9\nagent:\n  store_tool_obs: 0.5\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"p\.yaml:4: unknown knob agent\.store_tool_obs\. Did you mean agent\.store_tool_observations"):
        load_profile(bad)
    bad.write_text("answerer:\n  abstain_below: 1.5\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"p\.yaml:2: .*answerer\.abstain_below.*less than or equal to 1"):
        load_profile(bad)
    bad.write_text("agnet: {store_user_facts: 0.5}\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"unknown group 'agnet'\. Did you mean 'agent'"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="no such file"):
        load_profile(tmp_path / "missing.yaml")


def test_a_config_with_a_bad_profile_fails_before_any_work(tmp_path: Path):
    base = {"datasets": ["datasets/dev/dev.yaml"], "strategies": [{"name": "no_memory"}], "output_dir": str(tmp_path)}
    with pytest.raises(ConfigError, match="reconcile.updaet.*Did you mean reconcile.update"):
        validate_config({**base, "model": {"provider": "offline", "profile": {"reconcile": {"updaet": 0.5}}}})
    with pytest.raises(ConfigError, match="belongs to the offline model"):
        validate_config({**base, "model": {"provider": "openai", "model": "m", "profile": {"agent.store_user_facts": 0.5}}})
    with pytest.raises(ConfigError, match="one knob"):
        validate_config({**base, "model": {"provider": "offline", "options": {"tool_reliability": 0.5},
                                           "profile": {"agent.store_user_facts": 0.7}}})
    assert not list(tmp_path.iterdir())


def test_dotted_and_grouped_keys_agree_and_about_is_not_behaviour():
    a = parse_profile({"agent": {"store_tool_observations": 0.5}, "about": {"source_run": "x"}})
    b = parse_profile({"agent.store_tool_observations": 0.5})
    assert a == b and a.changed() == {"agent.store_tool_observations": 0.5} and a.digest() == b.digest()
    assert {k.name for k in KNOBS} >= {"extraction.user_recall", "extraction.assistant_recall", "extraction.tool_recall",
                                       "extraction.corruption", "reconcile.update", "reconcile.delete",
                                       "summariser.keep_values", "summariser.keep_tool_observations",
                                       "agent.store_user_facts", "agent.store_tool_observations", "answerer.abstain_below"}


def test_the_profile_is_part_of_the_model_identity_only_when_it_is_not_the_default(tmp_path: Path):
    plain = make_model({"provider": "offline"})
    assert plain.model_id == model_id()
    explicit = tmp_path / "default.yaml"
    explicit.write_text("".join(f"{k.name}: {'null' if k.default is None else k.default}\n" for k in KNOBS), encoding="utf-8")
    assert make_model({"provider": "offline", "profile": str(explicit)}).model_id == plain.model_id
    moved = make_model({"provider": "offline", "profile": {"agent.store_tool_observations": 0.5}})
    other = make_model({"provider": "offline", "profile": {"agent.store_tool_observations": 0.25}})
    assert moved.model_id.startswith(model_id() + "+profile-") and moved.model_id != other.model_id
    described = moved.describe()["profile"]
    assert described["changed"] == {"agent.store_tool_observations": 0.5} and not described["default"]
    assert described["knobs"]["answerer.abstain_below"] == 0.6
    # the former option is the knob agent.store_user_facts: same model either way
    assert make_model({"provider": "offline", "options": {"tool_reliability": 0.7}}).model_id == \
        make_model({"provider": "offline", "profile": {"agent": {"store_user_facts": 0.7}}}).model_id


def test_a_spec_without_a_profile_dumps_as_before_so_fingerprints_do_not_move():
    config = validate_config({"datasets": ["datasets/dev/dev.yaml"], "strategies": [{"name": "no_memory"}]})
    assert "profile" not in config.model.model_dump(mode="json")
    with_profile = validate_config({"datasets": ["datasets/dev/dev.yaml"], "strategies": [{"name": "no_memory"}],
                                    "model": {"provider": "offline", "profile": {"agent.store_user_facts": 0.5}}})
    assert with_profile.model.model_dump(mode="json")["profile"] == {"agent.store_user_facts": 0.5}


# ---- each knob acts in its mechanism, per item, deterministically -------------------------------

def _statements(n: int = 400) -> list[str]:
    return [f"I visited {CITIES[i % 10]} on my trip number {i}." for i in range(n)]


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_extraction_recall_keeps_each_fact_with_its_probability(p: float):
    kept = [bool(extract_turn(s, "user: Ida", "2024-03-01", "", _b(extraction__user_recall=p))) for s in _statements()]
    assert abs(sum(kept) / len(kept) - p) < 0.08
    again = [bool(extract_turn(s, "user: Ida", "2024-03-01", "", _b(extraction__user_recall=p))) for s in _statements()]
    assert kept == again  # a draw per item, the same in every run
    assert all(extract_turn(s, "user: Ida", "2024-03-01") for s in _statements(20))  # as built: every one


def test_extraction_tool_and_assistant_recall_and_corruption():
    tool = "listing 7\nrent: 1150 per month\nletting agent: Ivo Pereira"
    assert len(extract_turn(tool, "tool: listings")) == 3
    assert extract_turn(tool, "tool: listings", behaviour=_b(extraction__tool_recall=0.0)) == []
    said = "I booked the 7:30 train to Leeds for you."
    assert extract_turn(said, "assistant: Agent") == []  # as built the stand-in extracts no assistant statement
    assert extract_turn(said, "assistant: Agent", behaviour=_b(extraction__assistant_recall=1.0)) == \
        ["Agent booked the 7:30 train to Leeds for the user."]
    wrong = extract_turn("I live in Bergen. I have 3 cats.", "user: Ida", behaviour=_b(extraction__corruption=1.0))
    assert len(wrong) == 2 and "Bergen" not in wrong[0] and "Ida lives in" in wrong[0] and " 3 " not in wrong[1]


def test_reconcile_knobs_turn_an_unrecognised_change_into_an_add_and_ignore_a_retraction():
    update = ("Ida now lives in Bergen.", ["Ida lives in Oslo."], [0.7])
    retract = ("Ida no longer has a cat.", ["Ida has a cat called Bo."], [0.7])
    assert slots.reconcile(*update)["action"] == "UPDATE" and slots.reconcile(*retract)["action"] == "DELETE"
    assert slots.reconcile(*update, _b(reconcile__update=0.0)) == {"action": "ADD", "target": -1, "merged": ""}
    assert slots.reconcile(*retract, _b(reconcile__delete=0.0)) == {"action": "NOOP", "target": 0, "merged": ""}
    assert slots.reconcile(*update, _b(reconcile__delete=0.0))["action"] == "UPDATE"  # one knob, one decision


WORKING_MEMORY = ("user: Ida: Please check listing 12 for me.\nassistant: Agent: Calling `listings.get(12)`.\n"
                  "tool: listings: listing 12\naddress: 140 Station Square\nrent: 1150 per month")


def test_summariser_knobs_keep_tool_observations_of_a_working_memory_fold():
    assert summary.summarize("", WORKING_MEMORY, SIM) == ""  # as built: a fold keeps nothing
    kept = summary.summarize("", WORKING_MEMORY, SIM, _b(summariser__keep_tool_observations=1.0))
    assert "140 Station Square" in kept and "1150 per month" in kept
    assert summary.summarize("", WORKING_MEMORY, SIM, _b(summariser__keep_tool_observations=0.0)) == ""
    dated = "[2024-03-01] Ida: I live in Bergen.\n[2024-03-01] Ida: My sister is called Ana."
    assert summary.summarize("", dated, SIM) == summary.summarize("", dated, SIM, _b(summariser__keep_values=1.0))
    assert summary.summarize("", dated, SIM, _b(summariser__keep_values=0.0)) == ""


def test_agent_stores_tool_observations_only_when_its_knob_says_so():
    status = "working memory: 40 / 2000 tokens (2%)"
    assert agent.agent_step("", WORKING_MEMORY, status, {"store_fact"}, SIM)[1] == []
    _, calls = agent.agent_step("", WORKING_MEMORY, status, {"store_fact"}, SIM,
                                behaviour=_b(agent__store_tool_observations=1.0))
    assert [c[0] for c in calls] == ["store_fact"] * 3 and "listings reported rent: 1150 per month" in str(calls)
    # not offered store_fact: no write whatever the knob
    assert agent.agent_step("", WORKING_MEMORY, status, {"retrieve_facts"}, SIM,
                            behaviour=_b(agent__store_tool_observations=1.0))[1] == []


def test_answerer_threshold_moves_abstention():
    context = "[2024-01-01] Ida: I live in Bergen.\n[2024-01-02] Ida: My sister plays the cello."
    question = "What is the name of Ida's dentist?"
    support = answer.abstention_support(context, question, SIM)
    assert support is not None
    assert answer.answer(context, question, SIM) == answer.ABSTAIN
    assert answer.answer(context, question, SIM, abstain_below=support - 0.01) != answer.ABSTAIN
    assert answer.answer(context, question, SIM, abstain_below=support + 0.01) == answer.ABSTAIN
    # a line that shares a topic word is answered whatever the threshold
    assert answer.abstention_support(context, "Where does Ida live?", SIM) is None


def test_draws_are_independent_per_knob_and_stable():
    assert chance(0, "extraction.user_recall", "x") == chance(0, "extraction.user_recall", "x")
    assert chance(0, "extraction.user_recall", "x") != chance(0, "reconcile.update", "x")
    assert chance(0, "extraction.user_recall", "x") != chance(1, "extraction.user_recall", "x")
