"""Closed-class English words the offline model's rules are written in.

Every set here is a grammatical class or a discourse signal of English as a whole (pronouns,
auxiliaries, negators, aspect and time adverbials, speech-act markers), listed from grammar,
never from any dataset, so a reader can audit in one screen what the rules react to. Open-class
words (nouns, names, most verbs) are never listed: the rules treat them by shape (capitalisation,
digits) and through the embedder.
"""

from __future__ import annotations

PRONOUNS = frozenset("i me my mine myself we us our ours ourselves you your yours yourself he him his she her hers "
                     "it its they them their theirs this that these those".split())
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
ANAPHORS = frozenset("he she it they this that these those".split())
"""Subjects that point back to something said just before (a sentence opening with one continues it)."""

AUXILIARIES = frozenset("am is are was were be been being do does did have has had will would shall should can could "
                        "may might must".split())
WH_WORDS = frozenset("what who whom whose which when where why how".split())
DETERMINERS = frozenset("a an the some any no every each all both either neither another such".split())
PREPOSITIONS = frozenset("in on at to from of for with by about as into onto over under after before since until "
                         "during near through between among around across".split())
CONJUNCTIONS = frozenset("and or but so because if though although while than then yet nor".split())
FUNCTION_WORDS = (PRONOUNS | AUXILIARIES | WH_WORDS | DETERMINERS | PREPOSITIONS | CONJUNCTIONS
                  | frozenset("not n't no yes also too very really just still only even there here now then ever "
                              "quite pretty much many more most lot lots bit kind sort thing things stuff something "
                              "anything everything nothing one ones way well".split()))
LIGHT_VERBS = frozenset("be have do get make go".split())
"""Verbs that carry no relation of their own ("is", "has"): two facts sharing only these are not the same slot."""

INTERJECTIONS = frozenset("hi hello hey hiya yo thanks thank thx ty cheers ok okay k alright sure yes yeah yep yup no "
                          "nope nah oh ah aw aww wow whoa haha hahaha lol lmao hmm hm um uh well bye goodbye please "
                          "sorry oops cool nice great awesome lovely perfect fine good bad sad fun funny interesting "
                          "amazing wonderful welcome congrats congratulations morning evening night afternoon "
                          "sounds looks seems glad happy right true exactly indeed totally definitely agreed".split())
"""Greetings, backchannels and bare evaluations: a sentence made only of these and function words
reacts to the conversation and states nothing durable."""

NEGATORS = frozenset("not n't no never nobody nothing none nor neither anymore longer".split())
RETRACTION_VERBS = frozenset("stop quit cancel drop abandon".split())
"""Verbs (lemmas) that end a state or plan: "I quit my job", "we cancelled the trip"."""
CHANGE_CUES = frozenset("now anymore longer actually instead new newly switch change move become start join leave "
                        "transfer replace update currently lately recently".split())
"""Aspect and correction signals (lemmas) that a statement replaces an earlier value."""

DURABLE_CUES = ("from now on", "don't ever", "do not ever", "going forward", "in future", "in the future", "always", "never", "every time",
                "whenever", "by default", "from here on", "for all future")
"""Adverbials that make a request a standing preference rather than a one-off task."""
PREFERENCE_VERBS = frozenset("like love enjoy prefer hate dislike adore favorite favourite want allergic avoid "
                             "can't stand".split())
REQUEST_OPENERS = ("please", "can you", "could you", "would you", "will you", "can u", "could u", "i want you to",
                   "i need you to", "i'd like you to", "let's", "lets", "help me")
REQUEST_VERBS = frozenset("give tell show find write make help list suggest recommend explain summarize summarise "
                          "translate book check send remind add create plan draft search compare calculate fix "
                          "describe keep use answer reply respond call name pick choose set update remember note "
                          "forget ignore save store".split())
"""Base verbs that open an imperative addressed to the assistant ("Suggest three recipes")."""

INJECTION_CUES = ("ignore previous", "ignore all", "ignore the above", "ignore your", "disregard", "system prompt",
                  "your instructions", "previous instructions", "new instructions", "your rules", "you are now",
                  "act as", "pretend", "the user's", "the user is", "the user has", "the user wants",
                  "the user prefers", "the user said", "on behalf of", "note to the assistant", "note to assistant",
                  "assistant:", "your memory", "memory:", "store this", "save this", "remember this",
                  "update your", "override", "jailbreak", "developer mode")
"""Meta-language aimed at the assistant's own rules or memory, or claims made *about* the user
by a third voice: what prompt injection looks like whatever its payload."""

ABSTENTION_PATTERNS = (r"\bi (?:do not|don't|dont) know\b", r"\bnot (?:mentioned|specified|stated|known|provided)\b",
                       r"\bno (?:information|record|mention|idea)\b", r"\b(?:can't|cannot|couldn't) (?:tell|say|recall|remember|find)\b",
                       r"\b(?:you )?(?:haven't|have not|never) (?:told|said|mentioned)\b", r"\bnot sure\b",
                       r"^\s*(?:unknown|n/?a|idk|none)\s*[.!]?\s*$", r"^\s*$")
"""How a response declines to answer."""

TITLES = frozenset("dr mr mrs ms mx prof st sr jr".split())
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                           "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
                     "hundred": 100, "dozen": 12, "couple": 2})
