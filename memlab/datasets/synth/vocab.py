"""Word pools of the long-horizon generator: names, places, organisations, titles, episodes' phrasing.

Written for this generator (moved here from ``benchmarks/locomo_like.py`` with the proper nouns of the
offline model's development set removed): the development set (``datasets/dev/``) and these pools share
no name, place, organisation or pet name, and no template sentence (``tests/test_long_horizon.py``
checks it), so nothing the offline model was developed on reappears in the data it is evaluated on.
Multi-word city names are written with a hyphen in the source list and turned into spaces.
"""

from __future__ import annotations

FIRST = """Aaliyah Abel Ada Adrian Agnes Aiko Alba Alec Alina Amir Ana Anders Andile Anika Anton Arjun Astrid
Aurora Ayla Bea Ben Bianca Bilal Boris Bruno Camila Carla Carmen Cecile Chidi Chloe Clara Colin Dalia Damian 
Daniel Dario Dev Diego Dina Dmitri Edith Efe Eleni Elias Elif Elin Ellis Emeka Emil Enzo Erik Esme Esther 
Ezra Fatima Felix Femi Fiona Florian Freya Gabriel Gemma Gideon Greta Hamza Hana Hannah Harvey Hassan Hector Heidi
Helga Hugo Ida Ilse Imani Ingrid Ira Isaac Isla Ivan Jada Jakob Jamal Janek Jasper Javier Joy Julian
 Kai Kamal Karin Kasia Keanu Kenji Kira Lara Laszlo Leila Leon Lila Linus Liv Lorenzo Luca Lucia
Lukas Mabel Maeve Malik Mara Marco Margot Mateo Maya Mehmet Mei Milan Mina Miro Nadia Naomi Nico Nika Nils 
Nora Oskar Otto Paloma Pavel Petra Quinn Rafael Rania Remy Rhea Rosa Rowan Ruby Rui Sami Sana Sasha
Selin Seth Signe Silas Sofia Soren Stella Sven Tala Tariq Tess Theo Uma Vera Viktor Vivian Wanda Wes Yara
Yusuf Zara Zeynep Zoe""".split()
SURNAMES = """Abbott Adeyemi Alvarez Andersen Arslan Baker Banerjee Barros Becker Bell Bianchi Brandt Byrne Castillo
Chen Costa Dahl Delgado Dubois Eriksen Farouk Ferreira Fischer Flynn Fontaine Garcia Gallo Greco Haddad Hansen
Hartmann Hayes Horvat Ibrahim Ito Jansen Jensen Kader Kaur Keller Kim Kowalski Kruger Laine Lambert Larsen Leclerc
Lindqvist Lopez Lund Mahler Marsh Medina Mendes Moreau Moretti Murphy Nakamura Navarro Nguyen Novak Nowak Okafor
Olsen Ortiz Osei Park Patel Pereira Petrov Quinn Reyes Richter Rossi Sato Schmidt Silva Sousa Stewart Suzuki Svensson
Tanaka Torres Varga Vogel Wagner Walsh Weber Wolff Yilmaz Young Zhang Ziegler""".split()
CITIES = """Aberdeen Accra Adelaide Amsterdam Athens Austin Barcelona Berlin Bilbao Bologna Boston
Bratislava Bristol Brno Bruges Budapest Cairo Calgary Cape-Town Cardiff Chicago Cork Copenhagen Denver Dublin
Dubrovnik Edinburgh Florence Gdansk Geneva Ghent Glasgow Gothenburg Granada Hamburg Helsinki Istanbul Kyoto
Krakow Leeds Leipzig Lille Lima Ljubljana Lyon Madrid Malaga Manchester Marseille Melbourne Milan Montreal
Munich Nairobi Nantes Naples Osaka Oslo Ottawa Palermo Porto Prague Quebec Reykjavik Riga Rotterdam Salzburg
Santiago Seattle Seville Sofia Split Stockholm Tallinn Toronto Toulouse Trieste Turin Utrecht Valencia
Vancouver Venice Vienna Vilnius Warsaw Wellington York Zagreb Zurich""".split()
CITIES = [c.replace("-", " ") for c in CITIES]  # multi-word names are written with a hyphen: 'Cape-Town' 
ADJ = """Amber Blue Bright Cedar Copper Crooked Golden Green Hidden Iron Little Lucky Maple Misty Northern Old Quiet
Red Rolling Silver Stone Sunny Velvet Wild Winding""".split()
NOUN = """Anchor Badger Bell Bridge Canyon Compass Crane Fox Garden Harbour Hare Heron Kettle Lantern Meadow Mill
Orchard Otter Pine Raven River Sparrow Tide Willow""".split()
VENUES = ["Café", "Bakery", "Bistro", "Gallery", "Theatre", "Community Centre", "Climbing Gym", "Library", "Market",
    "Music Hall", "Park", "Brewery", "Bookshop", "Studio", "Arena", "Gardens", "Museum", "Yoga Studio"]
ORG_KINDS = ["Architects", "Health", "Robotics", "Media", "Analytics", "Foods", "Labs", "Design",
    "Energy", "Insurance", "Engineering", "Publishing", "Clinic", "Consulting", "Software"]
JOBS = ["nurse", "software developer", "teacher", "graphic designer", "accountant", "physiotherapist", "chef",
    "civil engineer", "pharmacist", "journalist", "data analyst", "architect", "social worker", "electrician",
    "marketing manager", "veterinarian", "paramedic", "librarian", "lab technician", "photographer"]
RELATIVES = ["sister", "brother", "cousin", "aunt", "uncle", "mum", "dad", "grandmother", "grandfather", "niece",
    "nephew", "daughter", "son"]
CONTACTS = ["friend", "neighbour", "colleague", "old school friend", "flatmate", "coach", "teammate", "manager"]
PETS = ["dog", "cat", "rabbit", "parrot", "tortoise", "hamster", "ferret", "budgie"]
PET_NAMES = """Biscuit Bramble Clover Cookie Dotty Ember Fig Gizmo Hazel Juniper Koda Loki Maple Miso Nacho
Nimbus Olive Pepper Pickle Pixel Poppy Rocket Rusty Sage Scout Shadow Sprout Sunny Tofu Waffles Ziggy""".split()
HOBBIES = [("pottery", "a pottery class"), ("rock climbing", "a climbing club"), ("salsa", "a salsa group"),
    ("watercolour painting", "a painting workshop"), ("chess", "a chess club"), ("trail running", "a running club"),
    ("baking sourdough", "a baking course"), ("the cello", "a community orchestra"), ("birdwatching", "a birding group"),
    ("photography", "a photo walk group"), ("woodworking", "a woodworking course"), ("swimming", "a masters swim squad"),
    ("Spanish", "an evening Spanish class"), ("gardening", "an allotment society"), ("choir singing", "a local choir"),
    ("kayaking", "a kayak club"), ("improv theatre", "an improv troupe"), ("knitting", "a knitting circle")]
EVENTS = ["a jazz festival", "a charity run", "a food market", "a film festival", "a book fair", "a street parade",
    "a craft fair", "a science fair", "a folk concert", "a wine tasting", "a comedy night", "a pride march",
    "a farmers' market", "an art exhibition", "a fundraising gala", "a marathon", "a poetry reading",
    "an open-air cinema", "a classical concert", "a board-game night"]
DISHES = ["ramen", "paella", "pho", "dumplings", "tacos", "risotto", "shakshuka", "pad thai", "falafel", "lasagne",
    "jollof rice", "bibimbap", "moussaka", "goulash", "ceviche", "pierogi", "curry laksa", "gnocchi"]
CARS = ["Skoda", "Mazda", "Kia", "Toyota", "Fiat", "Renault", "Hyundai", "Subaru", "Peugeot"]
CAR_KINDS = ["estate", "hatchback", "electric hatchback", "van", "SUV", "hybrid"]
INSTRUMENTS = ["guitar", "piano", "violin", "drums", "ukulele", "saxophone"]
ILLNESS = ["a sprained ankle", "the flu", "a bad back", "a pulled hamstring", "a broken wrist", "a nasty cold",
    "knee surgery", "a chest infection"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December"]
PHOTO = ["a photo of {x} on a sunny day", "a picture of {x} with people smiling", "a photo of {x} at sunset",
    "a close-up photo of {x}", "a blurry picture of {x} taken from a distance"]

REACT = ["That sounds amazing!", "Wow, I didn't expect that!", "Oh no, I'm sorry to hear that.", "That's so cool.",
    "Haha, that's brilliant.", "I love that for you.", "That must have been a lot.", "How exciting!",
    "Good for you!", "That's lovely to hear.", "No way, really?", "That sounds like a lot of fun.",
    "Oh nice, I've always wanted to try that.", "That's a big step!", "I'm really proud of you."]
ASK = ["How did it go?", "What was it like?", "Who did you go with?", "How are you feeling about it?",
    "Was it what you expected?", "What made you decide to do that?", "Would you do it again?",
    "What was the best part?", "How long did it take?", "Tell me more!"]
SMALL_OPEN = ["Hey {o}! It's been a while, how have you been?", "Hi {o}, good to hear from you! What's new?",
    "Hey {o}, long time no chat! How's everything?", "Hi {o}! I was just thinking about you. How are things?",
    "{o}! How was your week?", "Morning {o}! Got a minute to catch up?"]
SMALL_REPLY = ["Hey {o}! Busy as always, but good. How about you?", "Hi! Things are hectic but fine. You?",
    "Good to hear from you too! Work has been crazy. What about you?",
    "Not bad at all, thanks for asking. What's been going on with you?",
    "Pretty good! I've got lots to tell you actually."]
SMALL_CLOSE = ["I have to run, talk soon!", "Let's catch up again next week.", "Take care, {o}!",
    "Great chatting, {o}. Speak soon.", "Okay, I'll let you go. Bye for now!", "Talk later, {o}!"]
SMALL_CLOSE_REPLY = ["Bye {o}! Take care.", "Talk soon!", "Sounds good, see you!", "Have a good one, {o}!",
    "You too, bye!"]


PET_TITLES = ["Captain", "Little", "Lady", "Sir", "Princess", "Professor", "Major", "Duchess"]
PET_NAMES += """Acorn Basil Button Cinder Dumpling Fennel Gnocchi Honey Indigo Jelly Kiwi Lentil Marble Noodle Oatmeal
Paprika Quince Radish Saffron Truffle Umber Velvet Walnut Yuzu Zucchini""".split()

EXTRA = ["It rained the whole time, but honestly I didn't care.", "I took about a hundred photos, I'll send you some.",
         "I'm still thinking about it, to be honest.", "We got home really late and I was wrecked the next day.",
         "It was one of those days where everything just worked out.", "I wish you'd been there, you'd have loved it.",
         "The kids couldn't stop talking about it afterwards.", "It cost more than I planned, but it was worth every penny.",
         "I nearly didn't go because I was so tired after work.", "It reminded me of that summer we spent by the lake.",
         "My phone died halfway through, so no pictures of that part.", "I'd definitely go back, maybe in the spring.",
         "Everyone there was so friendly and welcoming.", "It took ages to get there because of the traffic.",
         "I felt so calm afterwards, like a reset button.", "There's a funny story about that, remind me to tell you.",
         "The weather was perfect, not a cloud in the sky.", "I've been meaning to tell you about it for weeks."]
COLOUR = ["It reminded me of that summer in {city}.", "{rel} says hi, by the way.",
          "I was so tired after a long {day} at work, but I'm glad I went.", "I told {rel} all about it on the phone.",
          "We stopped for coffee on the way home and talked about it for an hour.",
          "Next time I'm bringing {rel} along, they'd love it.", "I had to leave early to catch the last train to {city}.",
          "It's the kind of thing I never would have done a year ago.", "{rel} thinks I'm mad, obviously.",
          "I keep meaning to write it all down before I forget.", "It was freezing, even for {month}."]
ECHO = ["I remember when I tried something like that in {city}, it was chaos.", "My {rel} would be so jealous.",
        "We should do that together some time.", "I've been so stuck at home lately, this makes me want to get out more.",
        "That's exactly what I needed to hear today.", "You always find the best things to do.",
        "I'm writing that down so I remember it.", "It's been a long week here, so that's lovely to hear."]

# ------------------------------------------------------------------------------------------- an assistant's voice
ASSISTANT_REACT = ["That's wonderful news, congratulations!", "Oh, I'm sorry to hear that.", "That sounds like a lovely time.",
                   "What a great thing to have done.", "That must have been a lot to take in.", "How exciting!",
                   "I'm glad it went well.", "That sounds like a real adventure.", "Good for you, that takes effort.",
                   "That sounds like a big change.", "I'm really happy for you."]
ASSISTANT_ASK = ["How did it go?", "How are you feeling about it now?", "Was it what you expected?",
                 "Would you do it again?", "What was the best part?", "Is there anything I can help you plan around it?",
                 "Do you want me to keep that in mind for later?"]
ASSISTANT_REMARK = ["If you'd like, I can help you put together a plan for the next few weeks.",
                    "It's worth writing down how you felt about it while it's fresh.",
                    "Taking a day to rest afterwards is usually a good idea.",
                    "Let me know if you want reminders around that.",
                    "That kind of thing often gets easier the second time.",
                    "I can look up a few options whenever you're ready.",
                    "Small, regular steps usually work better than one big push.",
                    "Tell me if anything changes and I'll adjust the plan.",
                    "It's completely fine to take it one day at a time.",
                    "A short note in your calendar can save a lot of remembering.",
                    "If it helps, we can break it into smaller pieces next time.",
                    "Most people find the first attempt the hardest; it gets easier.",
                    "I'm happy to go through the details with you whenever suits you.",
                    "It sounds like you've thought it through carefully.",
                    "Looking back in a month, you'll probably be glad you did it.",
                    "If you want, I can also keep a short list of the things you mention, so nothing slips.",
                    "Sometimes the simplest version of a plan is the one that actually happens.",
                    "It might help to set aside a quiet half hour this week to think it over properly.",
                    "There's no rush on any of this; it's fine to decide later.",
                    "A lot of people in a similar situation find it useful to talk it through with a friend too.",
                    "I'd keep expectations modest at first and see how it feels after a couple of weeks.",
                    "Writing down the pros and cons, even roughly, usually makes the choice clearer.",
                    "Do let me know how it turns out; I'm curious.",
                    "If anything feels overwhelming, we can always make the next step smaller.",
                    "It's worth celebrating the small wins along the way.",
                    "Having a routine around it tends to make it much easier to keep going.",
                    "You clearly care about getting this right, which is a good sign.",
                    "I can draft a checklist for you whenever it would help.",
                    "Try not to compare your progress with other people's; everyone starts somewhere different.",
                    "When you have a moment, a quick note of what worked and what didn't would help next time.",
                    "It sounds like a busy stretch, so be kind to yourself about the pace.",
                    "There are usually more options than it first seems; we can look at a few together.",
                    "A bit of planning now will probably save you time later on.",
                    "If the first attempt doesn't go to plan, that's useful information rather than a failure.",
                    "Let me know if you'd like reminders, a summary, or just someone to think out loud with."]
USER_OPEN = ["Hi! Got a minute?", "Morning! Quick catch-up before work.", "Hey, it's me again.", "Evening! Long day.",
             "Hi there, I need a hand with something later, but first some news.", "Hello again!",
             "Hey, I've got a few things to tell you.", "Hi, back again with an update."]
ASSISTANT_OPEN = ["Hi {o}! Of course, what's new?", "Good to hear from you, {o}. What's on your mind?",
                  "Hello {o}! I'm here. How have things been?", "Hi {o}, welcome back. What's going on?"]
USER_CLOSE = ["Thanks, that's all for now.", "Okay, I'll let you go. Thanks!", "Brilliant, thank you.",
              "Perfect, talk later.", "That helps a lot, cheers."]
ASSISTANT_CLOSE = ["Anytime, {o}. Talk soon!", "You're welcome! Good luck with everything.",
                   "Glad I could help. Have a good evening.", "Take care, {o}."]

# help requests: the user asks for something general; the assistant answers at length (the bulk of a real chat's
# tokens), sometimes naming one specific thing the user may ask about later
HELP = {
    "dinner": ("Can you suggest something quick for dinner tonight? I've got {a}, {b} and some rice.",
               ["Here's an idea that uses what you have: fry the {a} with garlic until it softens, add the {b} for the "
                "last few minutes, and stir it through the rice with a splash of soy sauce.",
                "If you want more flavour, a squeeze of lemon and some chopped herbs at the end lift it a lot.",
                "It comes together in about twenty minutes, and the leftovers keep well for lunch the next day.",
                "For a change another night, the same base works as a frittata: whisk six eggs, pour them over, "
                "and finish it under the grill.", "Serve it with whatever greens you have; a simple salad is plenty."]),
    "email": ("Could you help me write a polite email to my landlord about the {a} in the bathroom?",
              ["Of course. Here's a draft you can adapt: 'Dear landlord, I'm writing about the {a} in the bathroom, "
               "which started a couple of weeks ago and has been getting worse.",
               "Could you arrange for someone to take a look this week? I'm happy to be flexible about access.'",
               "Keep it short and factual, mention when it started, and attach a photo if you have one.",
               "If you don't hear back within a few days, a brief follow-up that refers to this email is reasonable.",
               "It also helps to keep a copy of everything in one folder in case you need it later."]),
    "workout": ("I want to get fitter without a gym. What would a simple weekly routine look like?",
                ["A simple week could be three short strength sessions and two brisk walks or runs.",
                 "For strength, do squats, push-ups against a table, lunges and a plank: three rounds of each, "
                 "resting a minute between rounds.", "On the other days, aim for thirty minutes of walking at a pace "
                 "where talking is possible but not easy.", "Add one extra repetition or a few more minutes each week, "
                 "and keep one full rest day.", "Stretch for five minutes afterwards; it makes the next session easier."]),
    "budget": ("I keep running out of money before payday. Any tips for a monthly budget?",
               ["A good start is to list your fixed costs first: rent, bills, transport and subscriptions.",
                "Then set aside a fixed amount for savings on payday, before anything else, even if it's small.",
                "Divide what's left into weekly amounts for food and everything else, and track it for a month.",
                "Most people find a couple of subscriptions they forgot about; cancelling those is an easy win.",
                "Review it after the first month and adjust the weekly amounts to what you actually spend."]),
    "packing": ("I'm going away for a long weekend. Can you help me with a packing list?",
                ["Here's a compact list: three tops, one warm layer, a pair of trousers, comfortable shoes and "
                 "something smart in case you go out.", "Add a rain jacket, a small umbrella and a reusable bottle.",
                 "For toiletries, travel sizes of the essentials, any medication and a phone charger.",
                 "A small day bag is handy for walking around, and a copy of your booking details on paper helps "
                 "if your phone dies.", "Roll your clothes instead of folding them; it saves a surprising amount of space."]),
    "sleep": ("I've been sleeping badly for weeks. What can I try?",
              ["A few habits help most people: going to bed and getting up at the same time every day, even at weekends.",
               "Keep the bedroom dark and cool, and put screens away half an hour before bed.",
               "Caffeine after mid-afternoon can still affect you at night, so it's worth cutting it for a week to see.",
               "If you lie awake for a long time, get up, read something dull in dim light and go back when sleepy.",
               "If it carries on for more than a few weeks, it's worth mentioning to a doctor."]),
    "gift": ("I need a birthday present for someone who likes {a}. Any ideas?",
             ["Someone who likes {a} usually appreciates something that makes the hobby easier or more fun.",
              "A good book on the subject, a class or workshop voucher, or a small piece of quality equipment all work.",
              "Experiences tend to be remembered longer than objects, so a day out built around it is a nice idea.",
              "If you're unsure, a handwritten card with a plan to do something together is hard to beat.",
              "Wrapping it with a small personal touch makes even a simple present feel thoughtful."]),
    "plants": ("My houseplants keep dying. What am I doing wrong?",
               ["The most common problem is too much water: most houseplants like the soil to dry out a little between waterings.",
                "Check the light too, since many plants sold as indoor plants still want a bright spot near a window.",
                "Pots without drainage holes let water collect at the bottom and rot the roots.",
                "In winter they need less water and no feeding; in spring and summer a little feed every few weeks helps.",
                "Start with hardy ones like a snake plant or a pothos while you find a routine."]),
    "meeting": ("I have to run a team meeting for the first time next week. Any advice?",
                ["Send a short agenda a day or two before, with the decisions you need and who should speak to each item.",
                 "Start on time and say at the start what the meeting is for and when it will end.",
                 "Keep each item to its time, park side discussions, and note decisions and owners as you go.",
                 "End by reading back the actions, then send them round in writing the same day.",
                 "Most people are nervous the first time; a clear agenda does most of the work for you."]),
}
HELP_FILL = ["mushrooms", "spinach", "courgettes", "chickpeas", "peppers", "leeks", "tofu", "tomatoes", "damp patch",
             "leaking tap", "broken extractor fan", "mould", "cycling", "board games", "cooking", "gardening", "jazz",
             "astronomy", "hiking", "crosswords"]

# something the assistant recommends by name: (what the user asks for, kind, how the assistant names it)
RECOMMEND = [("a novel to read on my trip to {city}", "novel", "I'd suggest '{title}', a {adj} novel by {author}. People who like "
              "slow, character-driven stories tend to love it."),
             ("a day hike near {city}", "trail", "Try the {title} trail outside {city}: about {n} kilometres, mostly "
              "gentle, with a good view at the top."),
             ("a podcast for the long drive to {city}", "podcast", "'{title}' is a good one, hosted by {author}. The episodes are "
              "around forty minutes, which suits a commute."),
             ("a board game for an evening with my cousins from {city}", "board game", "'{title}' works well for families: quick to learn, "
              "forty-five minutes a game, up to six players."),
             ("a film for a cosy night in after my trip to {city}", "film", "How about '{title}', directed by {author}? It's warm and funny without "
              "being silly.")]

# tasks the assistant carries out with a tool: (request, tool name, observation, what the value is, question stem)
TOOL_TASKS = [
    ("Can you book a table for {n} at {venue} on {day}?", "restaurant_booking",
     "Booking confirmed. Venue: {venue}. Date: {date}, 19:30. Party size: {n}. Confirmation code: {code}.",
     "code", "What is the confirmation code of {p}'s table booking at {venue}?"),
    ("Please find me a train to {city} on {day} morning.", "rail_search",
     "3 results. Cheapest: train {train} departing 08:{mm}, arriving 11:{mm2}, platform {plat}, fare {price} EUR.",
     "train", "Which train did the assistant find for {p}'s trip to {city}?"),
    ("Could you check what the plumber quoted me? It should be in my email.", "email_search",
     "1 message found. From: {person}. Subject: Quote. Body: Replacing the bathroom tap, parts and labour, "
     "{price} pounds, available {day}.", "price", "How much did the plumber {person} quote {p} for the bathroom tap?"),
    ("Can you look up when the {venue} opens on Sundays?", "place_lookup",
     "{venue}: Sunday opening hours 10:{mm} to 17:00. Phone {phone}. Rating 4.{r}.",
     "phone", "What is the phone number of {venue} that the assistant looked up for {p}?"),
    ("Add my dentist appointment to the calendar: {day}, with Dr {surname}.", "calendar",
     "Event created: Dentist appointment, Dr {surname}, {date} at 09:{mm}, room {room}. Reminder set.",
     "room", "In which room is {p}'s dentist appointment with Dr {surname}?"),
    ("Please order the {item} I looked at yesterday.", "shop_order",
     "Order placed. Item: {item}. Order number {order}. Estimated delivery {date}.",
     "order", "What is the order number of the {item} {p} ordered?"),
]
TOOL_ITEMS = ["standing desk lamp", "pair of walking boots", "coffee grinder", "rain jacket", "bike lock",
              "set of saucepans", "desk chair", "sleeping bag", "electric kettle", "yoga mat"]
ASSISTANT_DONE = ["Done, it's booked. I'll remind you the day before.", "All set. I've saved the details for you.",
                  "Found it. Let me know if you want me to do anything else with it.",
                  "Sorted. You should get a confirmation soon.", "That's taken care of."]

# the user's stable preferences, stated in passing and applied later
PREFERENCES = [("seat", "When I travel I always want an aisle seat, I hate climbing over people.", "aisle seat",
                "What kind of seat does {p} prefer when travelling?"),
               ("coffee", "I only drink oat milk flat whites these days.", "oat milk flat whites",
                "What coffee does {p} drink these days?"),
               ("diet", "I've been vegetarian since spring, so no meat suggestions please.", "vegetarian",
                "What diet has {p} followed since spring?"),
               ("mornings", "I'm useless before nine, so never book anything earlier than that for me.", "nine",
                "Before what time should nothing be booked for {p}?"),
               ("music", "For background music I always go for old soul records.", "old soul records",
                "What does {p} like as background music?")]

# what an assistant adds after hearing a story, by the episode's topic: a real assistant's replies run to a
# paragraph, and they are most of a chat's tokens
ADVICE = {
    "travel": ["Trips like that are worth writing up while the details are fresh; a few lines per day is plenty.",
               "If you go back, shoulder season is usually quieter and cheaper than the summer months.",
               "Sorting the photos soon after a trip makes it much more likely you'll actually look at them again.",
               "It helps to keep a running list of places you'd like to return to, with a note on why.",
               "Coming home after a trip can feel flat for a day or two; a slow first evening back helps."],
    "events": ["Events like that are a good way to meet people with the same interests.",
               "If it's a yearly thing, it might be worth putting next year's date in the calendar now.",
               "Going with someone you know makes it easier to stay when it gets crowded.",
               "Local listings and newsletters are usually the best way to hear about the next one."],
    "people": ["It's lovely when a chance conversation turns into a real connection.",
               "Following up within a week or so, while the conversation is fresh, tends to keep things going.",
               "Shared interests make it easy to suggest a next meeting without it feeling forced.",
               "Meeting people outside work gets harder as we get older, so that's worth holding on to."],
    "work": ["The first few weeks in a new role are mostly about learning how things are done, so be kind to yourself.",
             "A short weekly check-in with your manager helps set expectations early.",
             "Keeping a simple log of what you've done each week makes reviews much easier later.",
             "It's normal for a new team to take a month or two to feel familiar."],
    "family": ["Family milestones like that are worth marking, even with something small.",
               "A card or a short message means a lot at moments like that.",
               "It sounds like your family is close, which is something many people wish they had.",
               "Big news in the family can stir up all sorts of feelings; that's completely normal."],
    "pets": ["The first few weeks are an adjustment for a new animal, so a steady routine helps a lot.",
             "It's worth registering with a local vet early, before anything comes up.",
             "Short, regular play sessions help a new pet settle and burn off energy.",
             "Keeping a small notebook of feeding, vet visits and vaccinations saves a lot of guessing later."],
    "hobbies": ["Most people find a new hobby frustrating for the first month and then it clicks.",
                "Going regularly matters more than being good at it; the progress comes with the routine.",
                "A group or class also gives you a reason to turn up on the days you don't feel like it.",
                "It might be worth noting what you learn after each session; it's encouraging to look back on."],
    "books and films": ["If you enjoyed that, the same author's earlier work is often worth a look.",
                        "Keeping a list of what you've read or watched, with one line on each, is nice to look back on.",
                        "Recommendations from friends tend to be better matches than bestseller lists.",
                        "Some people like to read reviews only after finishing, so the story isn't spoiled."],
    "moving house": ["Moving is one of the most stressful things people do, so it's fine if it feels like a lot.",
                     "A checklist for the move itself helps: utilities, post redirection, the landlord's deposit.",
                     "Packing one room at a time, starting with the one you use least, keeps things manageable.",
                     "Exploring the new neighbourhood on foot in the first week helps it feel like home sooner."],
    "health": ["Rest really is the main thing, even when it's frustrating to slow down.",
               "If it isn't improving within a week or two, it's worth going back to the doctor.",
               "Gentle movement, once you're allowed, usually helps more than staying completely still.",
               "Drinking enough water and sleeping well make more difference to recovery than people expect."],
    "purchases": ["It's worth keeping the receipt and the warranty details together somewhere safe.",
                  "Second-hand is often a great way to get better quality for the same money.",
                  "A quick check of the manual for maintenance tips can make it last much longer."],
    "food": ["A place that makes things from scratch is always worth supporting.",
             "It might be worth booking ahead if it gets busy at weekends.",
             "Trying the same dish in different places is a fun way to learn what you really like."],
    "plans": ["It helps to put it in the calendar now with a reminder a few days before.",
              "Having something to look forward to makes a busy stretch much easier.",
              "Checking the weather forecast a couple of days ahead can save a lot of hassle."],
    "follow-up": ["It's nice how these things come back around.", "Funny how small the world can be.",
                  "That's good to hear, thanks for the update."],
    "others' news": ["That's big news for them.", "It sounds like a lot is changing for the people around you.",
                     "It's nice that they keep you in the loop."],
}
DINNER_FILL = ["mushrooms", "spinach", "courgettes", "chickpeas", "peppers", "leeks", "tofu", "tomatoes", "broccoli",
               "lentils", "aubergine", "sweet potatoes"]
EMAIL_FILL = ["damp patch", "leaking tap", "broken extractor fan", "mould", "cracked tile", "faulty shower"]
GIFT_FILL = ["cycling", "board games", "cooking", "gardening", "jazz", "astronomy", "hiking", "crosswords", "photography"]
