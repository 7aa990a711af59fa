"""The process executor's lanes (memlab.harness.executors.base.AffinityQueue): a user's units stay on
one worker, so the worker that embedded a user's texts for one strategy reuses them for the next,
while no worker waits as long as any unit is left."""

from __future__ import annotations

import itertools
import random

import pytest

from memlab.harness.executors.base import AffinityQueue
from memlab.harness.units import Unit

STRATEGIES = ["a", "b", "c", "d"]


def _units(users: dict[str, int], dataset: str = "ds") -> list[Unit]:
    return [Unit(s, dataset, ns, (ns,), turns) for s in STRATEGIES for ns, turns in users.items()]


def _drain(queue: AffinityQueue, lanes: int, order) -> dict[int, list[Unit]]:
    """Ask lanes for units in ``order`` (an iterator of lane numbers) until every lane says none is left."""
    played: dict[int, list[Unit]] = {lane: [] for lane in range(lanes)}
    done: set[int] = set()
    for lane in order:
        if lane in done:
            if len(done) == lanes:
                break
            continue
        unit = queue.next(lane)
        if unit is None:
            done.add(lane)
        else:
            played[lane].append(unit)
    return played


@pytest.mark.parametrize("seed", range(5))
def test_every_unit_is_handed_out_once_whatever_order_the_lanes_ask_in(seed):
    rng = random.Random(seed)
    units = _units({f"u{i}": rng.randint(5, 60) for i in range(7)}) + _units({"u0": 12}, dataset="other")
    lanes = 3
    played = _drain(AffinityQueue(units, lanes), lanes, iter(lambda: rng.randrange(lanes), None))
    handed = [u for us in played.values() for u in us]
    assert sorted(u.key for u in handed) == sorted(u.key for u in units)


def test_a_users_units_stay_on_one_lane_until_the_end_of_the_run():
    users = {f"u{i}": 20 for i in range(8)}
    played = _drain(AffinityQueue(_units(users), 2), 2, itertools.cycle([0, 1]))
    lanes_of = {ns: {lane for lane, us in played.items() for u in us if u.namespace == ns} for ns in users}
    split = [ns for ns, lanes in lanes_of.items() if len(lanes) > 1]
    assert len(split) <= 1, f"users played on both lanes: {split}"  # at most the last one, taken to end together
    assert abs(len(played[0]) - len(played[1])) <= 1


def test_a_lane_without_users_of_its_own_takes_work_rather_than_wait():
    # one long user and one short: the lane that finishes the short user takes the long user's last units
    units = _units({"long": 100, "short": 10})
    queue = AffinityQueue(units, 2)
    first = queue.next(0)
    assert first is not None and first.namespace == "long"  # the longest user is claimed first
    shorts = [queue.next(1) for _ in STRATEGIES]
    assert {u.namespace for u in shorts} == {"short"}
    taken = queue.next(1)
    assert taken is not None and taken.namespace == "long"
    rest = [queue.next(0) for _ in range(2)]
    assert all(u is not None and u.namespace == "long" for u in rest)
    assert queue.next(0) is None and queue.next(1) is None


def test_a_users_longest_units_come_first():
    units = [Unit("a", "ds", "u", ("u",), 5), Unit("b", "ds", "u", ("u",), 50), Unit("c", "ds", "u", ("u",), 20)]
    queue = AffinityQueue(units, 1)
    assert [queue.next(0).strategy for _ in units] == ["b", "c", "a"]
