"""Synthetic conversation histories with the density of real chat: one generator, three uses.

A user's life told over months — new people, places, titles and organisations in every episode, values that
change several times, relatives' and friends' news that shares words with the user's own facts, chains that a
later session closes — by one seeded world (:mod:`.world`), one set of episodes (:mod:`.episodes`) and one
vocabulary (:mod:`.vocab`), disjoint from the offline model's development set. Three writers tell it:

* :mod:`.threads` — a user and their assistant, one thread per session, with long assistant answers and tool
  tasks: the long-horizon suites (``datasets/suitegen/long_horizon.py``);
* :mod:`.locomo` — two friends in LoCoMo's file format: the LoCoMo-shaped speed benchmark
  (``benchmarks/locomo_like.py``) and the per-turn cost tests;
* :mod:`.informative` — sessions of third parties' news, updates and distractors inserted into any dataset by
  ``memlab datasets scale --mode informative`` (history that carries facts, not filler).

Everything is drawn from a seeded ``random.Random``: the same arguments give the same bytes.
"""
