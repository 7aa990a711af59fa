"""The preference suite: stated and implied preferences a later request must respect."""

from __future__ import annotations

from typing import Any

from suitegen.vocab import ACKS, ASIDE_PRE, CHIT
from suitegen.core import Rng, lowfirst
from suitegen.conv import Conv, finish_probes, new_conv, run_sessions, start_date

PREFS: list[dict[str, Any]] = [
    dict(group="diet", gold="vegetarian", aliases=["meat-free", "meatless"],
         stated=["I'm vegetarian, have been since uni."],
         implied=["Anything meat-free works for me; I haven't touched meat in ten years."],
         q=["Suggest a dinner recipe for me tonight. What kind of dish should it be?",
            "I'm at a steakhouse with colleagues. What kind of dish should I look for on the menu?"],
         distract="My dad thinks a meal without steak isn't a meal."),
    dict(group="diet", gold="vegan", aliases=["plant-based"],
         stated=["I'm vegan, so no dairy or eggs for me either."],
         implied=["Fully plant-based for three years now, and I feel great."],
         q=["Recommend a birthday cake I can actually eat. What kind should it be?",
            "What kind of recipes should you suggest when I ask for dinner ideas?"],
         distract="My sister tried going vegan for a week and lasted two days."),
    dict(group="diet", gold="pescatarian", aliases=["fish", "seafood"],
         stated=["I'm pescatarian: fish yes, meat no."],
         implied=["Fish and seafood are fine, but no other meat for me."],
         q=["Pick a main course for me at a wedding buffet. What should it be?",
            "What kind of protein should meal plans for me use?"],
         distract="My flatmate eats chicken for every single meal."),
    dict(group="gluten", gold="gluten-free", aliases=["coeliac", "celiac"],
         stated=["I eat gluten-free, doctor's orders."],
         implied=["I'm coeliac, so bread is basically a weapon."],
         q=["Recommend a pastry for me at the bakery. What should I look for?",
            "What should you check when suggesting pasta dishes for me?"],
         distract="My coworker bakes incredible sourdough every week."),
    dict(group="milk", gold="oat milk", aliases=["oat"],
         stated=["Oat milk in everything please, dairy and I fell out years ago."],
         implied=["Dairy milk wrecks my stomach, so it's oat milk at home."],
         q=["Order me a latte. How should it be made?", "What should go in my coffee?"],
         distract="My boss drinks his coffee with double cream, terrifying."),
    dict(group="seat", gold="aisle", aliases=["aisle seat"],
         stated=["I always take the aisle seat on planes."],
         implied=["I get up every hour on long flights, so I grab the aisle so I don't climb over anyone."],
         q=["Book me a seat on my flight next month. Which kind?", "I'm choosing seats for the train to the coast. Where should I sit?"],
         distract="My partner always fights for the window seat."),
    dict(group="seat", gold="window", aliases=["window seat"],
         stated=["Window seat, always. I like watching the clouds."],
         implied=["On flights I need something to lean on to sleep, so I book the window."],
         q=["Book me a seat on my flight next month. Which kind?", "Choose a seat for me on the overnight bus."],
         distract="My friend always books the aisle, she has a tiny bladder."),
    dict(group="contact", gold="email", aliases=["e-mail", "by email"],
         stated=["Please don't call me; email is much better for me."],
         implied=["Phone calls give me anxiety, so email me whatever you need."],
         q=["My landlord needs to reach me about the repairs. How should he get in touch?",
            "How should the dentist's office send me my appointment reminder?"],
         distract="My mum only ever phones, never texts."),
    dict(group="format", gold="bullet points", aliases=["bullets", "bullet list", "bulleted list"],
         stated=["Keep answers in bullet points please, I read them on my phone."],
         implied=["Paragraphs kill me on my phone; bullet points I can actually read."],
         q=["Summarise my week's plan for me. What format should it be in?",
            "I need notes for my team meeting. How should you lay them out?"],
         distract="My manager writes emails that are one giant paragraph."),
    dict(group="travel", gold="train", aliases=["by train", "rail"],
         stated=["I'd rather take the train than fly, even if it takes all day."],
         implied=["Flying makes me panicky, so the train it is whenever possible."],
         q=["Plan how I get to my cousin's wedding 600 km away. What mode of transport?",
            "I have a conference in another country next month. How should I travel?"],
         distract="My brother flies everywhere, even 200 km."),
    dict(group="spice", gold="mild", aliases=["not spicy", "no chilli"],
         stated=["Mild food only, please. Spicy stuff destroys me."],
         implied=["Even black pepper is a bit much for me; keep things mild."],
         q=["What curry should I order tonight? How hot should it be?", "Suggest a taco filling for me. What heat level?"],
         distract="My neighbour puts hot sauce on everything, even eggs."),
    dict(group="spice", gold="spicy", aliases=["extra hot", "hot"],
         stated=["I love spicy food, the hotter the better."],
         implied=["Extra spicy, always; my friends think I'm mad."],
         q=["What curry should I order tonight? How hot should it be?", "Suggest a ramen for me. What style?"],
         distract="My partner can't handle even a little heat."),
    dict(group="music", gold="jazz", aliases=[],
         stated=["Jazz is my thing, especially old Blue Note records."],
         implied=["Put on some jazz and I'm instantly calmer."],
         q=["Make me a playlist for Sunday morning. Which genre?", "Recommend a concert for my birthday. What kind of music?"],
         distract="My flatmate blasts techno at 2 a.m."),
    dict(group="music", gold="metal", aliases=["heavy metal"],
         stated=["I listen to metal, loud, all day."],
         implied=["Nothing helps me focus like heavy metal through headphones."],
         q=["Make me a workout playlist. Which genre?", "Recommend a festival for me this summer. What kind of music?"],
         distract="My colleague only listens to smooth jazz."),
    dict(group="schedule", gold="morning", aliases=["early morning", "before work", "mornings"],
         stated=["I'm a morning person: anything before 8 am is my best time."],
         implied=["By 7 pm my brain is done, but at 6 in the morning I'm unstoppable."],
         q=["When should I schedule my runs this week?", "When should I book my study sessions?"],
         distract="My partner is a total night owl."),
    dict(group="budget", gold="budget", aliases=["hostel", "cheap"],
         stated=["I'd rather spend money on food than hotels, so budget places are fine."],
         implied=["A bed and a shower is all I need; cheap hostels are fine."],
         q=["Find me somewhere to stay for my trip. What kind of place?", "What hotel category should you look at for me?"],
         distract="My aunt only stays in five-star hotels."),
    dict(group="reading", gold="audiobooks", aliases=["audiobook", "audio"],
         stated=["I only really get through books as audiobooks these days."],
         implied=["Paper books sit on my nightstand forever; audiobooks on the commute I finish."],
         q=["I want to read more this year. In what format should you suggest books?",
            "Recommend how I should tackle the novel for my book club."],
         distract="My friend reads three paperbacks a week, somehow."),
    dict(group="film", gold="documentaries", aliases=["documentary"],
         stated=["Documentaries are my favourite kind of film."],
         implied=["Give me a good documentary over a blockbuster any day."],
         q=["Pick a film for my Friday night. What kind?", "What should I watch on the long flight?"],
         distract="My brother only watches superhero films."),
    dict(group="film", gold="horror", aliases=["horror films", "scary"],
         stated=["Horror films are my comfort watch, weirdly."],
         implied=["The scarier the better; I watch horror films to relax."],
         q=["Pick a film for my Friday night. What kind?", "Recommend a series for me to binge."],
         distract="My partner can't even watch the trailers for horror films."),
    dict(group="units", gold="Celsius", aliases=["°C", "centigrade"],
         stated=["Please use Celsius, Fahrenheit means nothing to me."],
         implied=["When people say 75 degrees I have no idea; I think in Celsius."],
         q=["What temperature unit should you use in the weather forecast for my trip?",
            "I'm setting an oven temperature from a recipe. Which unit should you give it in?"],
         distract="My American cousin only understands Fahrenheit."),
    dict(group="alcohol", gold="non-alcoholic", aliases=["alcohol-free", "mocktail", "mocktails"],
         stated=["I don't drink, so any non-alcoholic option is great."],
         implied=["Three years sober this spring, so alcohol-free options for me please."],
         q=["What should I order at the work party bar?", "Suggest a drink pairing for my dinner."],
         distract="My uncle brought six bottles of wine to a lunch for four."),
    dict(group="exercise", gold="low-impact", aliases=["swimming", "cycling"],
         stated=["My knees are shot, so I stick to low-impact stuff like swimming."],
         implied=["After the knee surgery the physio said low-impact only, so swimming it is."],
         q=["Suggest a new way for me to stay fit this winter.", "What kind of exercise class should I sign up for?"],
         distract="My coworker is training for an ultramarathon."),
    dict(group="herb", gold="coriander", aliases=["cilantro"],
         stated=["No coriander for me, ever. It tastes like soap."],
         implied=["Whenever there's coriander in a dish all I taste is soap."],
         q=["Which herb should you leave out of recipes you suggest for me?",
            "I'm ordering pho. What should I ask them to leave off?"],
         distract="My flatmate grows coriander on every windowsill."),
    dict(group="hotdrink", gold="tea", aliases=["green tea", "black tea"],
         stated=["I'm a tea person. Coffee makes me jittery."],
         implied=["One espresso and my hands shake, so it's tea for me."],
         q=["I'm at a café. What should I order?", "What should you put on my office-kitchen shopping list to drink?"],
         distract="My coworker drinks six espressos a day."),
]
REVERSALS = [  # (group, old gold, new gold, statement of the change)
    ("seat", "window", "aisle", "I've switched from window to aisle seats; I'm done climbing over people."),
    ("seat", "aisle", "window", "I'm a window-seat person now, aisle seats mean getting bumped by trolleys."),
    ("music", "jazz", "metal", "I used to be all jazz, but lately it's metal, non-stop."),
    ("film", "horror", "documentaries", "I've gone off horror films completely. Documentaries now, my nerves thank me."),
    ("schedule", "evening", "morning", "I used to train in the evening, now I only train in the morning."),
    ("hotdrink", "coffee", "tea", "I quit coffee last month; tea only now."),
]


def suite_preference(rng: Rng) -> list[Conv]:
    """Stated and implied preferences that must be applied to later requests."""
    convs, used_names = [], set()
    groups = sorted({p["group"] for p in PREFS})
    for i in range(7):
        c = new_conv("preference", i + 1, rng, used_names, start_date(rng))
        n = rng.randint(8, 9)
        rev = rng.pick(REVERSALS)
        chosen_groups = rng.sample([g for g in groups if g != rev[0]], 6)
        prefs = [rng.pick([p for p in PREFS if p["group"] == g]) for g in chosen_groups]
        plan: list[list] = [[] for _ in range(n)]
        pending: list[dict] = []
        tids: dict[str, str] = {}
        for k, pref in enumerate(prefs):
            how = "implied" if k % 2 else "stated"
            si = rng.randrange(0, n - 2)

            def act(conv, pref=pref, how=how):
                text = rng.pick(pref[how])
                if rng.random() < 0.4:  # as an aside inside a longer message
                    ex = rng.pick([e for e in CHIT if "{" not in e[0] + e[1]])
                    pre = rng.pick(ASIDE_PRE)
                    text = text if pre[-1] in ".!?" else lowfirst(text)
                    tids[pref["gold"]] = conv.u(f"{pre} {text} Anyway, {lowfirst(ex[0])}")
                    conv.a(ex[1])
                else:
                    tids[pref["gold"]] = conv.u(text)
                    conv.a(rng.pick(["Noted, I'll keep that in mind.", "Good to know!", "Got it.", "Understood, thanks.", "Fair enough!"]))
            plan[si].append(act)
            # someone else's contrasting preference, later
            plan[rng.randrange(si, n)].append(lambda conv, pref=pref: conv.u(pref["distract"]) and conv.a(rng.pick(ACKS)))
        # a reversal: old preference early, new one later
        group, old, new, change = rev
        old_stmt = {"window": "Window seat for me, always.", "aisle": "Aisle seat for me, always.",
                    "jazz": "I'm all about jazz these days.", "horror": "Horror films are my favourite thing to watch.",
                    "evening": "I do my training in the evening, after work.", "coffee": "Coffee, black, three times a day."}[old]
        s_old, s_new = rng.randrange(0, n // 2), rng.randrange(n // 2, n - 1)
        plan[s_old].append(lambda conv: tids.__setitem__("_old", conv.u(old_stmt)) or conv.a(rng.pick(ACKS)))
        plan[s_new].append(lambda conv: tids.__setitem__("_new", conv.u(change)) or conv.a("Noted, I'll go with that from now on."))
        for actions in plan:
            rng.shuffle(actions)
        run_sessions(c, plan, 10, 16)
        last = n - 1
        for k, pref in enumerate(prefs):
            qs = rng.sample(pref["q"], 2 if k < 2 else 1)
            for q in qs:
                gold = {"text": pref["gold"], "aliases": pref["aliases"]} if pref["aliases"] else pref["gold"]
                pending.append(dict(at=last, question=q, category="preference", gold=gold, evidence=[tids[pref["gold"]]]))
        rq = next(p for p in PREFS if p["group"] == group)["q"][0]
        pending.append(dict(at=last, question=rq, category="preference", gold=new, superseded=[old],
                            evidence=[tids["_new"]]))
        finish_probes(c, pending)
        convs.append(c)
    return convs


PURPOSE = "Stated and implied preferences (diet, seats, contact channel, answer format, spice, music, units...) that a later request must respect; gold is the preference-consistent span. Other people's opposite preferences are mentioned as distractors, and one preference per conversation is reversed (`superseded`)."
"""The card's purpose paragraph."""

build = suite_preference
