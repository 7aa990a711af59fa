"""Episodes of a life told in conversation: each writes a few lines into a :class:`~.world.Session`
and leaves :class:`~.world.Fact` records behind.

An episode is told by ``p`` to the other speaker of the session (a friend in LoCoMo's shape, the
assistant in memlab's threads), who answers in the session's :class:`~.world.Voice`. Most episodes
introduce new entities (people, places, titles, organisations, pets) — the density of real chat that
filler text lacks. Three kinds go beyond one session:

* **updates** (:data:`UPDATES`): a value that changes (employer and job, home city, car); each
  change supersedes the earlier ones (``Fact.slot``/``superseded``);
* **chains** (:func:`ep_meet` opens one, :func:`ep_follow_up` closes it sessions later): a person
  introduced in one session whose detail a later session gives — asked by the first session's
  anchor, answered by the second's value (multi-hop across sessions);
* **others' news** (:func:`ep_others_news`): the same kind of fact about someone else (a sister's
  new job, a colleague's new dog), sharing words with the teller's own facts (distractors).
"""

from __future__ import annotations

import random

from memlab.datasets.synth.vocab import (CAR_KINDS, CARS, CONTACTS, DISHES, EVENTS, HOBBIES, ILLNESS, INSTRUMENTS, JOBS,
                                        MONTHS, PETS, PHOTO, RELATIVES, WEEKDAYS, ADJ, SURNAMES)
from memlab.datasets.synth.world import Fact, Person, Session, World, an, when_future, when_past

Facts = list[Fact]


def ep_trip(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    city = w.city({p.city, *(c for c, _ in p.visited)})
    companion_rel = rng.choice(list(p.relatives) or ["friend"])
    companion = p.relatives.get(companion_rel) or w.first()
    when, gold, day = when_past(rng, s.date)
    venue = w.venue(city)
    dish = rng.choice(DISHES)
    cap = rng.choice(PHOTO).format(x=f"a street in {city}") if rng.random() < 0.4 else None
    d1 = s.say(p, rng.choice([f"I just got back from {city}! We flew out {when}.",
                              f"Guess what, I was in {city} {when}. Such a great trip.",
                              f"I went to {city} {when} with my {companion_rel} {companion}."]))
    s.reply(q, s.voice.question(rng, [f"{city}! Who did you go with?"]))
    d2 = s.say(p, rng.choice([f"My {companion_rel} {companion} came along. We spent a whole afternoon at {venue}.",
                              f"Just me and {companion}, my {companion_rel}. The highlight was {venue}.",
                              f"{companion} came with me and we found {venue}, which was incredible."]), cap)
    s.reply(q, s.voice.resp(rng))
    d3 = s.say(p, rng.choice([f"And the food! I had the best {dish} of my life there.",
                              f"We ate {dish} every single day, no regrets.",
                              f"{companion} insisted on trying {dish} at a tiny place near the station."]))
    p.visited.append((city, d1))
    s.topics.append("travel")
    s.dates += 1
    facts += [Fact("single", f"Which city did {p.name} visit with {companion}?", city, [d1, d2], subject=p.name),
              Fact("temporal", f"When did {p.name} go to {city}?", gold, [d1], day=day, subject=p.name, literal=False),
              Fact("single", f"What did {p.name} eat in {city}?", dish, [d3], subject=p.name),
              Fact("single", f"Which place in {city} did {p.name} visit with {companion}?", venue.removeprefix("the "),
                   [d2], subject=p.name),
              Fact("other", f"Which city did {q.name} visit with {companion}?", city, [d1, d2], subject=q.name)]


def ep_event(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    event = rng.choice(EVENTS)
    venue = w.venue(p.city)
    when, gold, day = when_past(rng, s.date)
    friend = rng.choice(list(p.contacts.values()) or [w.first()])
    cap = rng.choice(PHOTO).format(x=event.removeprefix("a ").removeprefix("an ")) if rng.random() < 0.35 else None
    d1 = s.say(p, rng.choice([f"I went to {event} at {venue} {when} with {friend}.",
                              f"{when.capitalize()} {friend} and I went to {event} at {venue}.",
                              f"So {when} I finally made it to {event}. It was at {venue}, and {friend} came too."]), cap)
    s.reply(q, s.voice.resp(rng, s.voice.ask))
    d2 = s.say(p, rng.choice(["It was packed, but the atmosphere was electric.", "Honestly better than I expected.",
                              f"{friend} knew half the people there, so we stayed until the end.",
                              "The music was a bit loud, but we had a great time."]))
    s.reply(q, s.voice.resp(rng))
    s.topics.append("events")
    s.dates += 1
    place = venue.removeprefix("the ")
    facts += [Fact("temporal", f"When did {p.name} go to {event} at {place}?", gold, [d1], day=day, subject=p.name,
                   literal=False),
              Fact("single", f"Where was the {event.split(' ', 1)[1]} that {p.name} went to with {friend}?", place, [d1],
                   subject=p.name),
              Fact("single", f"Who went to {event} at {place} with {p.name}?", friend, [d1, d2], subject=p.name),
              Fact("other", f"When did {q.name} go to {event} at {place}?", gold, [d1], subject=q.name, literal=False)]


def ep_new_person(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    rel = rng.choice(CONTACTS)
    name = w.person()
    venue = w.venue(p.city)
    job = rng.choice(JOBS)
    k = rng.randrange(3)
    d1 = s.say(p, [f"I met someone really interesting at {venue}, {name}. Turns out they're {an(job)}.",
                   f"My new {rel} {name} invited me over last night. They work as {an(job)}.",
                   f"Have I told you about {name}? We got talking at {venue}; they're {an(job)}."][k])
    s.reply(q, rng.choice(["Oh nice, how did you two get talking?", f"{an(job).capitalize()}? That's cool.", "Tell me more!"]))
    grew = w.city()
    d2 = s.say(p, rng.choice(["We both reached for the last copy of the same book, can you believe it.",
                              f"They grew up in {grew}, so we swapped travel stories for hours.",
                              f"We're meeting again on {rng.choice(WEEKDAYS)} for coffee."]))
    p.contacts[f"{rel} {len(p.contacts)}"] = name.split()[0]
    s.topics.append("people")
    facts += [Fact("single", f"What does {p.name}'s acquaintance {name} do for work?", job, [d1], subject=p.name),
              Fact("other", f"What does {q.name}'s acquaintance {name} do for work?", job, [d1], subject=q.name)]
    if k != 1:  # the line says where they met
        facts.append(Fact("single", f"Where did {p.name} meet {name}?", venue.removeprefix("the "), [d1], subject=p.name))
    if f"grew up in {grew}" in s.lines[-1][1]:
        facts.append(Fact("single", f"Where did {name} grow up?", grew, [d2], subject=p.name))


def ep_job(rng: random.Random, w: World, s: Session, p: Person, facts: Facts, history: dict) -> None:
    """A new job: employer and job title change (an update), and a new manager."""
    q = s.other(p)
    old_job, old_org = p.job, p.employer
    p.job, p.employer = rng.choice([j for j in JOBS if j != old_job]), w.org()
    boss = w.person()
    when, gold, day = when_past(rng, s.date)
    d1 = s.say(p, rng.choice([f"Big news: I left {old_org} and started at {p.employer} {when} as {an(p.job)}.",
                              f"I finally quit being {an(old_job)}! I'm {an(p.job)} at {p.employer} now, started {when}.",
                              f"So I accepted the offer from {p.employer}. I started {when}, working as {an(p.job)}."]))
    s.reply(q, rng.choice(["Congratulations!!", "No way, that's huge!", "How's the new place?"]))
    d2 = s.say(p, rng.choice([f"My manager is {boss}, who seems great so far.", f"I report to {boss}. Very organised person.",
                              f"The team is small; {boss} runs it."]))
    s.topics.append("work")
    s.dates += 1
    history.setdefault(("job", p.name), []).append((p.job, d1))
    history.setdefault(("employer", p.name), []).append((p.employer, d1))
    history.setdefault(("manager", p.name), []).append((boss, d2))
    facts += [Fact("update", f"What is {p.name}'s current job?", p.job, [d1], slot="job", subject=p.name),
              Fact("update", f"Where does {p.name} work now?", p.employer, [d1], slot="employer", subject=p.name),
              Fact("temporal", f"When did {p.name} start working at {p.employer}?", gold, [d1], day=day, subject=p.name,
                   literal=False),
              Fact("update", f"Who is {p.name}'s manager now?", boss, [d2], slot="manager", subject=p.name),
              Fact("other", f"Who is {q.name}'s manager at {p.employer}?", boss, [d2], subject=q.name)]


def ep_family(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    rel = rng.choice(RELATIVES)
    if rel not in p.relatives:
        p.relatives[rel] = w.first()
    name = p.relatives[rel]
    when, gold, day = when_past(rng, s.date)
    thing = rng.choice([("graduated from university", "graduation"), ("got engaged", "engagement"),
                        ("ran their first half marathon", "half marathon"), ("moved to " + w.city(), "move"),
                        ("had a baby girl", "baby"), ("opened a bakery", "bakery opening"),
                        ("retired after thirty years", "retirement"), ("won a local chess tournament", "tournament")])
    d1 = s.say(p, rng.choice([f"My {rel} {name} {thing[0]} {when}!", f"{when.capitalize()} my {rel} {name} {thing[0]}.",
                              f"Family news: {name}, my {rel}, {thing[0]} {when}."]),
               rng.choice(PHOTO).format(x="a family celebration") if rng.random() < 0.3 else None)
    s.reply(q, s.voice.resp(rng))
    s.say(p, rng.choice(["We're all so happy for them.", "It's been an emotional few days.", "Mum cried, obviously."]))
    s.topics.append("family")
    s.dates += 1
    facts += [Fact("single", f"What is the name of {p.name}'s {rel}?", name, [d1], subject=p.name),
              Fact("temporal", f"When did {p.name}'s {rel} {name} celebrate their {thing[1]}?", gold, [d1], day=day,
                   subject=p.name, literal=False),
              Fact("single", f"What did {p.name}'s {rel} {name} do recently?", thing[0], [d1], subject=p.name),
              Fact("other", f"What is the name of {q.name}'s {rel}?", name, [d1], subject=q.name)]


def ep_pet(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    kind = rng.choice(PETS)
    name = w.pet_name()
    when, gold, day = when_past(rng, s.date)
    shelter = w.venue(p.city)
    d1 = s.say(p, rng.choice([f"We adopted a {kind} {when}! Her name is {name}.",
                              f"Meet {name}, our new {kind}. We brought him home {when}.",
                              f"I couldn't resist: I adopted a {kind} called {name} from {shelter} {when}."]),
               rng.choice(PHOTO).format(x=f"a {kind}"))
    s.reply(q, rng.choice([f"Oh my goodness, {name} is adorable!", f"A {kind}! How is {name} settling in?"]))
    d2 = s.say(p, rng.choice([f"{name} already has the whole house wrapped around her paw.",
                              f"{name} hides under the sofa most of the day, but he's getting braver.",
                              f"{name} is eating everything in sight."]))
    p.pets.append((kind, name))
    s.topics.append("pets")
    s.dates += 1
    facts += [Fact("single", f"What is the name of {p.name}'s {kind}?", name, [d1], subject=p.name),
              Fact("temporal", f"When did {p.name} adopt {name}?", gold, [d1], day=day, subject=p.name, literal=False),
              Fact("single", f"What kind of animal is {name}?", kind, [d1, d2], subject=p.name),
              Fact("other", f"What is the name of {q.name}'s {kind}?", name, [d1], subject=q.name)]
    w.pending.append({"kind": "pet", "name": name, "pet": kind, "owner": p.name, "ref": d1})


def ep_hobby(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    hobby, group = rng.choice(HOBBIES)
    day = rng.choice(WEEKDAYS)
    venue = w.venue(p.city)
    teacher = w.person()
    d1 = s.say(p, rng.choice([f"I've started {hobby}! I joined {group} at {venue} that meets every {day}.",
                              f"New hobby alert: {hobby}. There's {group} at {venue} on {day} evenings.",
                              f"I signed up for {group} at {venue}, every {day}. I've always wanted to try {hobby}."]))
    s.reply(q, rng.choice(["How are you finding it?", "That's so you!", f"I hear {hobby} is harder than it looks."]))
    d2 = s.say(p, rng.choice([f"The instructor, {teacher}, is very patient with beginners.",
                              f"I'm terrible so far, but {teacher}, who runs it, says everyone is at first.",
                              f"{teacher} who leads the sessions has been doing it for twenty years."]),
               rng.choice(PHOTO).format(x=hobby) if rng.random() < 0.3 else None)
    p.hobbies.append((hobby, group, day))
    s.topics.append("hobbies")
    place = venue.removeprefix("the ")
    facts += [Fact("single", f"What hobby did {p.name} take up at {place}?", hobby, [d1], subject=p.name),
              Fact("open", f"What is {p.name} likely to be doing on {day} evenings?", hobby, [d1], subject=p.name),
              Fact("single", f"Who leads the {hobby} sessions {p.name} attends?", teacher, [d2], subject=p.name),
              Fact("other", f"What hobby did {q.name} take up at {place}?", hobby, [d1], subject=q.name)]


def ep_book(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    title = w.title()
    author = w.person()
    medium = rng.choice(["book", "novel", "film", "documentary", "podcast series"])
    verb = "watched" if medium in ("film", "documentary") else "listened to" if medium.startswith("podcast") else "read"
    d1 = s.say(p, rng.choice([f"I just {verb} a {medium} called '{title}' by {author}. Couldn't put it down.",
                              f"Have you come across '{title}'? It's a {medium} by {author}; I {verb} it in two days.",
                              f"'{title}' by {author} is the best {medium} I've {verb} this year."]))
    s.reply(q, rng.choice(["What's it about?", "That sounds worth a look!", "Is it sad? Some of those are heavy going."]))
    about = rng.choice([f"a lighthouse keeper in {w.city()}", "two sisters who inherit a failing vineyard",
                        "an engineer who builds a bridge nobody wants", "a chef who loses her sense of taste",
                        f"a detective in {w.city()} in the 1920s", "a family road trip that goes wrong"])
    d2 = s.say(p, f"It's about {about}.")
    p.books.append((title, d1))
    s.topics.append("books and films")
    facts += [Fact("single", f"Who made the {medium} '{title}' that {p.name} {verb}?", author, [d1], subject=p.name),
              Fact("multi", f"What is the {medium} by {author} that {p.name} {verb} about?", about, [d1, d2],
                   subject=p.name),
              Fact("other", f"Who made the {medium} '{title}' that {q.name} {verb}?", author, [d1], subject=q.name)]


def ep_move(rng: random.Random, w: World, s: Session, p: Person, facts: Facts, history: dict) -> None:
    """A move: the home city (an update) and the street of the new flat."""
    q = s.other(p)
    old = p.city
    p.city = w.city({old, *(v for v, _ in history.get(("city", p.name), []))})
    when, gold, day = when_future(rng, s.date)
    street = f"{rng.choice(SURNAMES)} {rng.choice(['Street', 'Road', 'Lane', 'Avenue'])}"
    d1 = s.say(p, rng.choice([f"We're moving from {old} to {p.city} {when}! We found a flat on {street}.",
                              f"Decision made: I'm leaving {old}. Moving to {p.city} {when}, a place on {street}.",
                              f"I signed a lease in {p.city}, on {street}. The move is {when}."]))
    s.reply(q, rng.choice([f"{p.city}! That's a big change from {old}.", "Wow, how do you feel about it?"]))
    s.say(p, rng.choice(["Nervous but excited.", "Packing is a nightmare already.", "It's time for a change."]))
    s.topics.append("moving house")
    s.dates += 1
    history.setdefault(("city", p.name), []).append((p.city, d1))
    history.setdefault(("street", p.name), []).append((street, d1))
    facts += [Fact("update", f"Which city does {p.name} live in now?", p.city, [d1], slot="city", subject=p.name),
              Fact("temporal", f"When is {p.name} moving to {p.city}?", gold, [d1], day=day, subject=p.name, literal=False),
              Fact("update", f"What street is {p.name}'s flat on now?", street, [d1], slot="street", subject=p.name),
              Fact("other", f"Which city is {q.name} moving to?", p.city, [d1], subject=q.name)]


def ep_car(rng: random.Random, w: World, s: Session, p: Person, facts: Facts, history: dict) -> None:
    """A car bought or traded in (an update of what the teller drives)."""
    q = s.other(p)
    brand = rng.choice([c for c in CARS if not (p.car or "").endswith(c)])
    colour = rng.choice(["red", "grey", "dark green", "white", "blue", "black", "silver"])
    kind = rng.choice(CAR_KINDS)
    car = f"{colour} {brand}"
    if p.car:
        d1 = s.say(p, rng.choice([f"We finally traded in the {p.car.split(' ', 1)[-1]}. I'm driving a {car} {kind} now.",
                                  f"Goodbye old car: I sold the {p.car.split(' ', 1)[-1]} and bought a {car} {kind}."]))
    else:
        d1 = s.say(p, rng.choice([f"I finally bought a car: a {car} {kind}.",
                                  f"We got a car! A {car}, it's a {kind}."]),
                   rng.choice(PHOTO).format(x=f"a {colour} car") if rng.random() < 0.4 else None)
    p.car = car
    s.reply(q, s.voice.resp(rng))
    s.topics.append("purchases")
    history.setdefault(("car", p.name), []).append((brand, d1))
    facts += [Fact("update", f"What brand of car does {p.name} drive now?", brand, [d1], slot="car", subject=p.name),
              Fact("single", f"What colour is {p.name}'s {brand}?", colour, [d1], subject=p.name),
              Fact("other", f"What brand of car did {q.name} buy?", brand, [d1], subject=q.name)]


def ep_health(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    ill = rng.choice(ILLNESS)
    when, gold, day = when_past(rng, s.date)
    doc = w.person()
    clinic = w.venue(p.city)
    d1 = s.say(p, rng.choice([f"I've been out of action since {when}: {ill}.",
                              f"Ugh, I picked up {ill} {when}. Doctor {doc.split()[0]} at {clinic} says rest.",
                              f"{when.capitalize()} I ended up with {ill}. Not my finest week."]))
    s.reply(q, rng.choice(["Oh no! Are you okay?", "That's awful, I hope you feel better soon.", "What happened?"]))
    s.say(p, rng.choice(["Getting there, slowly.", "Lots of tea and bad TV.", "I'll be back on my feet in no time."]))
    s.topics.append("health")
    s.dates += 1
    facts += [Fact("single", f"What health problem did {p.name} have in {MONTHS[s.date.month - 1]} {s.date.year}?", ill,
                   [d1], subject=p.name),
              Fact("temporal", f"When did {p.name} get {ill}?", gold, [d1], day=day, subject=p.name, literal=False)]


def ep_purchase(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    inst = rng.choice(INSTRUMENTS)
    shop = w.venue(p.city)
    d1 = s.say(p, f"I bought a second-hand {inst} at {shop}. Time to finally learn properly.")
    facts += [Fact("single", f"What instrument did {p.name} buy at {shop.removeprefix('the ')}?", inst, [d1],
                   subject=p.name)]
    s.reply(q, s.voice.resp(rng))
    s.topics.append("purchases")


def ep_food(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    dish = rng.choice(DISHES)
    place = w.venue(p.city)
    chef = w.first()
    d1 = s.say(p, rng.choice([f"You have to try the {dish} at {place}. The chef, {chef}, makes it from scratch.",
                              f"I've found the best {dish} in town: {place}. {chef} runs the kitchen."]),
               rng.choice(PHOTO).format(x=f"a bowl of {dish}") if rng.random() < 0.3 else None)
    s.reply(q, rng.choice(["Noted, that sounds great.", f"I've heard good things about {dish} there.", "Is it expensive?"]))
    s.topics.append("food")
    facts += [Fact("single", f"Where does {p.name} recommend for {dish}?", place.removeprefix("the "), [d1], subject=p.name),
              Fact("single", f"Who is the chef at {place.removeprefix('the ')}?", chef, [d1], subject=p.name)]


def ep_plan(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    q = s.other(p)
    when, gold, day = when_future(rng, s.date)
    what = rng.choice([f"a hike up {rng.choice(ADJ)} Peak", f"a weekend in {w.city({p.city})}",
                       f"a surprise party for {rng.choice(list(p.relatives.values()) or [w.first()])}",
                       f"a camping trip by {rng.choice(ADJ)} Lake", f"a workshop at {w.venue(p.city)}"])
    d1 = s.say(p, rng.choice([f"I'm planning {what} {when}.", f"{when.capitalize()} I've got {what} coming up.",
                              f"Put it in your diary: {what}, {when}."]))
    s.reply(q, rng.choice(["That sounds like a good plan.", "Sounds perfect.", "Do you want a reminder closer to the time?"]))
    s.topics.append("plans")
    s.dates += 1
    facts += [Fact("temporal", f"When is {p.name} planning {what}?", gold, [d1], day=day, subject=p.name, literal=False)]


# ------------------------------------------------------------------------------------------- chains and distractors
def ep_meet(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    """Someone met at a place, with no word yet of what they do: a later session says (a chain)."""
    q = s.other(p)
    name = w.person()
    venue = w.new_venue(p.city)
    d1 = s.say(p, rng.choice([f"I got chatting with a stranger at {venue} today, {name}. Lovely person.",
                              f"At {venue} I ended up sharing a table with someone called {name}.",
                              f"You'll never guess who I bumped into at {venue}: a {rng.choice(['tall', 'quiet', 'funny'])} "
                              f"person called {name} who knew my {rng.choice(RELATIVES)}."]))
    s.reply(q, s.voice.resp(rng))
    s.topics.append("people")
    facts.append(Fact("single", f"Whom did {p.name} meet at {venue.removeprefix('the ')}?", name, [d1], subject=p.name))
    w.pending.append({"kind": "met", "name": name, "venue": venue.removeprefix("the "), "owner": p.name, "ref": d1})


def ep_follow_up(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> bool:
    """Close an open chain from an earlier session; False when none is open (the caller tells another episode)."""
    open_ = [c for c in w.pending if c["owner"] == p.name and int(c["ref"][1:].split(":")[0]) < s.n]
    if not open_:
        return False
    chain = open_[0]
    w.pending.remove(chain)
    q = s.other(p)
    if chain["kind"] == "met":
        job, org = rng.choice(JOBS), w.org()
        d2 = s.say(p, rng.choice([f"Remember {chain['name']}? Turns out they're {an(job)} at {org}.",
                                  f"I saw {chain['name']} again. They work as {an(job)}, at {org} of all places."]))
        s.reply(q, s.voice.resp(rng))
        facts += [Fact("multi", f"What does the person {p.name} met at {chain['venue']} do for work?", job,
                       [chain["ref"], d2], subject=p.name),
                  Fact("multi", f"Where does the person {p.name} met at {chain['venue']} work?", org, [chain["ref"], d2],
                       subject=p.name)]
    else:  # a pet's vet
        vet = f"Dr {rng.choice(SURNAMES)}"
        clinic = w.new_venue(p.city)
        d2 = s.say(p, rng.choice([f"{chain['name']} had a check-up this week with {vet} at {clinic}. All fine.",
                                  f"Took {chain['name']} to {vet} at {clinic}; just a sore paw, nothing serious."]))
        s.reply(q, s.voice.resp(rng))
        facts += [Fact("multi", f"Which vet saw {p.name}'s {chain['pet']}?", vet, [chain["ref"], d2], subject=p.name),
                  Fact("multi", f"Where did {p.name}'s {chain['pet']} have a check-up?", clinic.removeprefix("the "),
                       [chain["ref"], d2], subject=p.name)]
    s.topics.append("follow-up")
    return True


def ep_others_news(rng: random.Random, w: World, s: Session, p: Person, facts: Facts) -> None:
    """A relative's or friend's news of the kind the teller's own facts are (a distractor that shares their words)."""
    q = s.other(p)
    rel = rng.choice(list(p.relatives) or ["cousin"])
    name = p.relatives.get(rel) or w.first()
    kind = rng.randrange(4)
    if kind == 0:
        job, org = rng.choice(JOBS), w.org()
        d1 = s.say(p, f"My {rel} {name} started a new job as {an(job)} at {org}. Their manager sounds awful.")
        facts.append(Fact("single", f"Where did {p.name}'s {rel} {name} start a new job?", org, [d1], subject=p.name))
    elif kind == 1:
        city = w.city({p.city})
        d1 = s.say(p, f"My {rel} {name} is moving to {city} next month; they found a flat near the station.")
        facts.append(Fact("single", f"Which city is {p.name}'s {rel} {name} moving to?", city, [d1], subject=p.name))
    elif kind == 2:
        pet, pname = rng.choice(PETS), w.pet_name()
        d1 = s.say(p, f"My {rel} {name} adopted a {pet} called {pname}. I'm not jealous at all.")
        facts.append(Fact("single", f"What is the name of the {pet} {p.name}'s {rel} {name} adopted?", pname, [d1],
                          subject=p.name))
    else:
        brand = rng.choice(CARS)
        d1 = s.say(p, f"My {rel} {name} just bought a {rng.choice(['red', 'grey', 'white'])} {brand}, so now they "
                      f"want to drive everywhere.")
        facts.append(Fact("single", f"What car did {p.name}'s {rel} {name} buy?", brand, [d1], subject=p.name))
    s.reply(q, s.voice.resp(rng))
    s.topics.append("others' news")


EPISODES = [ep_trip, ep_event, ep_new_person, ep_family, ep_pet, ep_hobby, ep_book, ep_health, ep_purchase, ep_food,
            ep_plan]
WEIGHTS = [3, 4, 4, 3, 1, 3, 3, 2, 2, 3, 3]
UPDATES = [ep_job, ep_move, ep_car]
