"""The fact catalog: every kind of personal fact a suite can plant, with its phrasings, questions and distractors."""

from __future__ import annotations

from datetime import date
from typing import Any

from suitegen.vocab import ALLERGENS, CAFES, CAR_MODELS, CAT_BREEDS, CITIES, COLORS, COMMUTES, COMPANIES, DENTISTS, DISHES, DOG_BREEDS, FEMALE, HOBBIES, INSTRUMENTS, LANGUAGES, MALE, PET_NAMES, TEAMS, TITLES, VEGETABLES
from suitegen.core import date_text


def _pet(rng, used):
    species = rng.pick(["dog", "dog", "cat"])
    breed = rng.fresh(DOG_BREEDS if species == "dog" else CAT_BREEDS, used)
    return {"species": species, "breed": breed, "name": rng.fresh(PET_NAMES, used)}


def _sib(rng, used, rel=None):
    rel = rel or rng.pick(["sister", "brother"])
    return {"rel": rel, "sname": rng.fresh(FEMALE if rel == "sister" else MALE, used), "scity": rng.fresh(CITIES, used),
            "sjob": rng.fresh(TITLES, used)}


def _partner(rng, used):
    rel = rng.pick(["wife", "husband", "partner", "girlfriend", "boyfriend"])
    pool = FEMALE if rel in ("wife", "girlfriend") else MALE if rel in ("husband", "boyfriend") else FEMALE + MALE
    return {"prel": rel, "pname": rng.fresh(pool, used), "pjob": rng.fresh(TITLES, used)}


def _kid(rng, used):
    rel = rng.pick(["son", "daughter"])
    return {"krel": rel, "kname": rng.fresh(FEMALE if rel == "daughter" else MALE, used), "kage": str(rng.randint(3, 15))}


def _bday(rng, used):
    d = date(2024, rng.randint(1, 12), rng.randint(1, 28))
    return {"bday": date_text(d), "_date": d}


FACTS: dict[str, dict[str, Any]] = {
    "pet": dict(
        sample=_pet,
        stmt=["We adopted a {breed} last month! {name} has already claimed the sofa.",
              "My {species} {name} knocked a mug off the table this morning, so the day started well.",
              "{name}, my {breed}, has learned to open the treat drawer. I'm doomed.",
              "I've had {name} for three years now. Best {species} in the world, slightly chaotic {breed}."],
        ask=["Do you have any pets?", "Who's the furry menace I keep hearing about?"],
        ans=["Yes, a {breed} called {name}.", "That'd be {name}, my {species}. A {breed}, very dramatic."],
        frag=["{name} (my {breed}) had a vet check and is fine", "I taught {name}, my {species}, to high-five"],
        third=["My mum says I spoil {name}, my {breed}, more than I ever spoiled myself."],
        ack=["{name} sounds like a character!", "A {breed}! Lovely."],
        slots={"name": (["What is my {species} called?", "What's the name of {user}'s {species}?",
                         "Remind me, what did I say my {species}'s name is?"], []),
               "breed": (["What breed is my {species} {name}?", "What kind of {species} does {user} have?"], [])},
        distract=["My neighbour's {species} {d_name} howled for an hour last night.",
                  "Saw a {d_breed} at the park today that looked exactly like a cartoon.",
                  "My coworker keeps sending photos of her {species}, {d_name}."],
    ),
    "city": dict(
        sample=lambda rng, used: {"city": rng.fresh(CITIES, used)},
        stmt=["I live in {city}, in a flat with very thin walls.", "Our place in {city} has the worst radiators.",
              "Been living in {city} for six years now and I still get lost in the old town."],
        ask=["Where are you based these days?", "Which city are you in, so I get the weather stuff right?"],
        ans=["{city}. Born elsewhere, but {city} is home now.", "I'm in {city}."],
        frag=["still in {city}, still complaining about the trams", "rent in {city} went up again"],
        third=["My friends outside {city} think I'm mad for living here."],
        ack=["{city}, nice.", "Good to know you're in {city}."],
        slots={"city": (["Which city do I live in?", "Where is {user} based?", "In which city does {user} live?"], [])},
        distract=["My cousin just moved to {d_city}, she won't stop sending photos.",
                  "Thinking about a weekend in {d_city} sometime.", "A colleague is relocating to {d_city} next year."],
    ),
    "hometown": dict(
        sample=lambda rng, used: {"town": rng.fresh(CITIES, used)},
        stmt=["I grew up in {town}, a long time ago now.", "Back in {town}, where I grew up, we'd swim in the river every summer."],
        ask=["Where did you grow up?"],
        ans=["{town}. Left at eighteen and never quite went back."],
        frag=["went back to {town}, where I grew up, for a weekend"],
        third=["My dad still lives in {town}, the house I grew up in."],
        ack=["Growing up in {town} must have been nice."],
        slots={"town": (["Where did I grow up?", "What is {user}'s hometown?"], [])},
        distract=["A friend of mine grew up in {d_town}, funny coincidence with the accent."],
    ),
    "job": dict(
        sample=lambda rng, used: {"company": rng.fresh(COMPANIES, used), "title": rng.fresh(TITLES, used)},
        stmt=["I'm a {title} at {company}.", "Work at {company} was chaos today. Being a {title} there is never boring.",
              "I've been a {title} for years, the last two at {company}."],
        ask=["What do you do for work?", "What's your job, by the way?"],
        ans=["I'm a {title}. At {company}, for my sins.", "{title}, at {company}."],
        frag=["work at {company} is busy but fine", "still the only {title} on my floor"],
        third=["My mum still can't explain to her friends what a {title} does, even after all my years at {company}."],
        ack=["Being a {title} sounds demanding.", "{company}, got it."],
        slots={"company": (["Where do I work?", "Which company does {user} work for?"], []),
               "title": (["What is my job?", "What does {user} do for a living?"], [])},
        distract=["A recruiter from {d_company} messaged me again, not interested.",
                  "My friend just got hired at {d_company} as a {d_title}."],
    ),
    "sibling": dict(
        sample=_sib,
        stmt=["My {rel} {sname} lives in {scity}, we talk every Sunday.",
              "{sname}, my little {rel}, is visiting from {scity} next week.",
              "My {rel} {sname} called from {scity} to complain about the heat."],
        ask=["Do you have family nearby?", "Any siblings?"],
        ans=["Not really, my {rel} {sname} is in {scity}.", "One {rel}, {sname}. Lives in {scity}."],
        frag=["my {rel} {sname} got a new flat in {scity}"],
        third=["Our mum keeps asking why {sname}, my {rel}, never calls from {scity}."],
        ack=["It's nice that you and {sname} stay in touch.", "{scity} is a bit far, but at least there's the phone."],
        slots={"sname": (["What's my {rel}'s name?", "What is the name of {user}'s {rel}?"], []),
               "scity": (["Where does my {rel} live?", "Which city is {user}'s {rel} in?"], [])},
        distract=["My coworker's {rel} lives in {d_scity}, apparently it's lovely."],
    ),
    "partner": dict(
        sample=_partner,
        stmt=["My {prel} {pname} is a {pjob}, so dinner conversation is mostly about that.",
              "{pname} (my {prel}) just started a new shift pattern as a {pjob}."],
        ask=["Who's the other person in the house I keep hearing about?", "Do you live with anyone?"],
        ans=["My {prel}, {pname}. Works as a {pjob}.", "Yes, {pname}, my {prel}. {pjob}, long hours."],
        frag=["{pname}, my {prel}, has a big week at work as a {pjob}"],
        third=["My friends joke that {pname} being a {pjob} makes {pname} the sensible one, and they're right."],
        ack=["{pname} sounds great.", "A {pjob}! That's a lot of responsibility."],
        slots={"pname": (["What's my {prel}'s name?", "Who is {user}'s {prel}?"], []),
               "pjob": (["What does my {prel} do for work?", "What is {user}'s {prel}'s job?"], [])},
        distract=["My neighbour's husband is a {d_pjob}, he told me all about it."],
    ),
    "car": dict(
        sample=lambda rng, used: {"model": rng.fresh(CAR_MODELS, used), "color": rng.pick(COLORS)},
        stmt=["I drive a {color} {model}, it's older than some of my coworkers.",
              "The {model} needs new tyres again. That car eats money."],
        ask=["Do you drive?"], ans=["Yep, a {color} {model}. Not glamorous, but reliable."],
        frag=["the {model} passed its inspection"],
        third=["My brother-in-law keeps teasing me about my {color} {model}."],
        ack=["A {model} is a solid choice.", "Reliable beats glamorous."],
        slots={"model": (["What car do I drive?", "What kind of car does {user} drive?"], [])},
        distract=["My friend bought a {d_model} and won't stop talking about it."],
    ),
    "instrument": dict(
        sample=lambda rng, used: {"instrument": rng.fresh(INSTRUMENTS, used), "teacher": rng.fresh(FEMALE + MALE, used)},
        stmt=["I started {instrument} lessons with a teacher called {teacher}. My neighbours are thrilled.",
              "{teacher}, my {instrument} teacher, says I'm rushing the tempo again."],
        ask=["Are you learning anything new at the moment?"],
        ans=["The {instrument}! Lessons with {teacher} on Wednesdays."],
        frag=["{instrument} practice with {teacher} is going slowly"],
        third=["{teacher} told my mum I'm the most stubborn {instrument} student they've ever taught."],
        ack=["The {instrument}, how fun.", "Patience with the {instrument} pays off."],
        slots={"instrument": (["Which instrument am I learning?", "What instrument does {user} play?"], []),
               "teacher": (["Who is my {instrument} teacher?", "What's the name of {user}'s {instrument} teacher?"], [])},
        distract=["A kid on my street plays the {d_instrument} at 7 a.m. every day."],
    ),
    "hobby": dict(
        sample=lambda rng, used: {"hobby": rng.fresh(HOBBIES, used)},
        stmt=["I've got really into {hobby} lately, it's the only thing that switches my brain off.",
              "Weekends are for {hobby} now. I'm terrible at it and I love it."],
        ask=["What do you do to unwind?"], ans=["{hobby}, mostly. Badly, but with enthusiasm."],
        frag=["signed up for another {hobby} session"],
        third=["My partner says I talk about {hobby} more than about work."],
        ack=["{hobby} sounds like a great way to unwind.", "Terrible and loving it is the right attitude."],
        slots={"hobby": (["What hobby have I taken up?", "What does {user} do to relax?"], [])},
        distract=["My flatmate tried {d_hobby} once and gave up after a week."],
    ),
    "allergy": dict(
        sample=lambda rng, used: {"allergen": rng.fresh(ALLERGENS, used)},
        stmt=["Heads up: I'm allergic to {allergen}. Found out the hard way when I was twelve.",
              "Can't go near {allergen}, I'm allergic, so I'm always that person asking waiters questions."],
        ask=["Any allergies I should know about for the recipes?"], ans=["{allergen}. Properly allergic, not just fussy."],
        frag=["still allergic to {allergen}, sadly"],
        third=["My doctor reminded me to carry my medication because of the {allergen} allergy."],
        ack=["Noted, no {allergen} suggestions.", "Thanks, I'll keep {allergen} out of anything I suggest."],
        slots={"allergen": (["What am I allergic to?", "What is {user} allergic to?"], [])},
        distract=["A kid in my niece's class is allergic to {d_allergen}, so the whole school is {d_allergen}-free."],
    ),
    "birthday": dict(
        sample=_bday,
        stmt=["My birthday's on {bday}, and yes, I expect cake.", "Turning another year older on {bday}. Don't remind me."],
        ask=["When's your birthday? I'll remind you to plan something."], ans=["{bday}. Usually I forget myself."],
        frag=["my birthday's coming up on {bday}"],
        third=["My sister always calls at midnight on {bday} to sing happy birthday badly."],
        ack=["{bday}, noted!", "Cake it is."],
        slots={"bday": (["When is my birthday?", "On what date is {user}'s birthday?"], [])},
        distract=["My colleague's birthday is on {d_bday}, we're doing a collection."],
    ),
    "commute": dict(
        sample=lambda rng, used: {"mode": rng.fresh(COMMUTES, used)},
        stmt=["I commute by {mode}, forty minutes each way.", "The {mode} was late again this morning, third time this week."],
        ask=["How do you get to work?"], ans=["By {mode}. It's slow, but I can read."],
        frag=["the {mode} to work is still a mess"],
        third=["My boss can't believe I come in by {mode} every day."],
        ack=["Forty minutes is a decent chunk of reading time.", "Late again, that's annoying."],
        slots={"mode": (["How do I get to work?", "How does {user} commute?"], [])},
        distract=["Half my team comes in by {d_mode} now."],
    ),
    "language": dict(
        sample=lambda rng, used: {"lang": rng.fresh(LANGUAGES, used)},
        stmt=["I'm learning {lang} on the side, mostly so I can order food confidently.",
              "Day 40 of {lang} practice. The grammar is winning."],
        ask=["Any new projects?"], ans=["Learning {lang}. Slowly."],
        frag=["{lang} lessons twice a week now"],
        third=["My tutor says my {lang} accent is improving, she's being kind."],
        ack=["{lang} is a great choice.", "Grammar always wins at first."],
        slots={"lang": (["Which language am I learning?", "What language is {user} studying?"], [])},
        distract=["My coworker speaks fluent {d_lang}, I'm jealous."],
    ),
    "garden": dict(
        sample=lambda rng, used: {"veg": rng.fresh(VEGETABLES, used)},
        stmt=["I'm growing {veg} on the balcony this year. Fingers crossed.",
              "The {veg} on my balcony are finally doing something!"],
        ask=["Do you garden at all?"], ans=["Just a balcony. {veg} this year."],
        frag=["the balcony {veg} survived the storm"],
        third=["My neighbour keeps asking for my {veg} when they're ready."],
        ack=["Balcony gardening is so satisfying.", "Fingers crossed for the {veg}!"],
        slots={"veg": (["What am I growing on my balcony?", "What is {user} growing at home?"], [])},
        distract=["The allotment next door has amazing {d_veg} this year."],
    ),
    "cafe": dict(
        sample=lambda rng, used: {"cafe": rng.fresh(CAFES, used)},
        stmt=["My usual café, {cafe}, changed their menu and I'm in mourning.",
              "I basically live at {cafe} on Saturday mornings."],
        ask=["Where do you usually work from on weekends?"], ans=["{cafe}. They know my order."],
        frag=["{cafe} has a new barista"],
        third=["My friends know that if I'm missing on a Saturday I'm at {cafe}."],
        ack=["Menu changes are a real loss.", "Having a regular spot is nice."],
        slots={"cafe": (["What's the name of my usual café?", "Which café does {user} go to on Saturdays?"], [])},
        distract=["A new place called {d_cafe} opened near the station, haven't tried it."],
    ),
    "dentist": dict(
        sample=lambda rng, used: {"dname": rng.fresh(DENTISTS, used)},
        stmt=["My dentist, Dr. {dname}, says I grind my teeth at night.", "Dentist on Friday. Dr. {dname} is kind but very thorough."],
        ask=["Do you have a dentist you like?"], ans=["Yes, Dr. {dname}. Thorough."],
        frag=["check-up with Dr. {dname} went fine"],
        third=["My partner switched to Dr. {dname} too, after hearing me rave."],
        ack=["Night grinding is common; a guard helps.", "Thorough is good for a dentist."],
        slots={"dname": (["Who is my dentist?", "What's the name of {user}'s dentist?"], [])},
        distract=["My sister's GP, Dr. {d_dname}, retired last month."],
    ),
    "kid": dict(
        sample=_kid,
        stmt=["My {krel} {kname} turned {kage} last week and now wants a drum kit.",
              "{kname} (my {krel}, {kage} going on 40) has opinions about everything."],
        ask=["Do you have kids?"], ans=["One, my {krel} {kname}. {kage} years old and runs the house."],
        frag=["{kname}, my {krel}, started swimming lessons"],
        third=["My mother-in-law says {kname} is exactly like me at {kage}."],
        ack=["{kage} is a fun age.", "{kname} sounds like a force of nature."],
        slots={"kname": (["What's my {krel}'s name?", "What is {user}'s {krel} called?"], []),
               "kage": (["How old is my {krel}?", "How old is {user}'s {krel} {kname}?"], [])},
        distract=["My neighbour's kid is {d_kage} and already taller than me."],
    ),
    "team": dict(
        sample=lambda rng, used: {"team": rng.fresh(TEAMS, used)},
        stmt=["I support {team}, which means I suffer every weekend.", "{team} lost again. I need new hobbies."],
        ask=["Do you follow any sport?"], ans=["Football. {team}, unfortunately."],
        frag=["{team} finally won a match"],
        third=["My dad made me support {team} before I could walk."],
        ack=["Loyalty through suffering.", "There's always next season."],
        slots={"team": (["Which team do I support?", "What football team does {user} follow?"], [])},
        distract=["My neighbour is a {d_team} fan, so we don't discuss football."],
    ),
    "dish": dict(
        sample=lambda rng, used: {"dish": rng.fresh(DISHES, used)},
        stmt=["If I could eat one thing forever it'd be {dish}.", "Made {dish} again tonight. Still my favourite thing to cook."],
        ask=["What's your comfort food?"], ans=["{dish}, no contest."],
        frag=["perfected my {dish} recipe"],
        third=["My flatmate says my {dish} is better than the restaurant's."],
        ack=["{dish} is a great choice.", "Can't argue with that."],
        slots={"dish": (["What's my favourite dish?", "What is {user}'s favourite food?"], [])},
        distract=["The canteen served {d_dish} today, it was sad."],
    ),
}
