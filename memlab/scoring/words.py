"""English function words: the closed classes a judge may ignore when it asks whether a response
touches the gold answer's topic (pronouns, auxiliaries, wh-words, determiners, prepositions,
conjunctions and a few discourse words). A fixed list from grammar, kept here so the yardstick owns
its own vocabulary: the offline model has its own list (memlab/offline/lexicon.py), and editing
that one for the model can never move a score.
"""

from __future__ import annotations

FUNCTION_WORDS = frozenset("""
i me my mine myself we us our ours ourselves you your yours yourself he him his she her hers it its they them their
theirs this that these those am is are was were be been being do does did have has had will would shall should can
could may might must what who whom whose which when where why how a an the some any no every each all both either
neither another such in on at to from of for with by about as into onto over under after before since until during
near through between among around across and or but so because if though although while than then yet nor not n't
yes also too very really just still only even there here now ever quite pretty much many more most lot lots bit kind
sort thing things stuff something anything everything nothing one ones way well
""".split())
