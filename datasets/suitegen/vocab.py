"""Value pools and impersonal chit-chat the suite generators draw from (names, places, employers, breeds...)."""

from __future__ import annotations



FEMALE = ["Ana", "Beatriz", "Chiara", "Dalia", "Elif", "Farah", "Grace", "Hana", "Ines", "Jude", "Keiko", "Leila",
          "Marta", "Nadia", "Olga", "Paula", "Quinn", "Rosa", "Sofia", "Tamsin", "Uma", "Vera", "Wren", "Yara",
          "Zoe", "Aoife", "Bianca", "Camille", "Daria", "Esme", "Freya", "Gloria", "Ingrid", "Joana", "Kavya",
          "Lorna", "Mireille", "Noor", "Odile", "Priyanka", "Rania", "Signe", "Thandi", "Valentina", "Ximena"]
MALE = ["Amir", "Bruno", "Caio", "Dmitri", "Emeka", "Felix", "Goran", "Hugo", "Idris", "Jonas", "Kenji", "Luca",
        "Mateus", "Nikhil", "Oskar", "Pablo", "Rafael", "Sami", "Tariq", "Umar", "Viktor", "Wes", "Yusuf",
        "Zeke", "Anselm", "Bastien", "Cormac", "Diego", "Elias", "Finn", "Gustavo", "Henrik", "Ivo", "Jamal",
        "Kwame", "Lars", "Milo", "Nico", "Ollie", "Piotr", "Ruben", "Stellan", "Teo", "Vikram", "Wilf"]
SURNAMES = ["Abara", "Berg", "Castillo", "Dumont", "Eriksen", "Ferreira", "Gallo", "Haddad", "Ivanova", "Jensen",
            "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Pereira", "Quint", "Rossi", "Schmidt",
            "Tanaka", "Uddin", "Varga", "Walsh", "Xu", "Yilmaz", "Zapata", "Achterberg", "Brennan", "Chaudhry",
            "Delacroix", "Esposito", "Fitzgerald", "Gunawardena", "Horvat", "Iqbal", "Jovanovic", "Kaplan",
            "Laine", "Mbeki", "Novak", "Osei", "Park", "Rahman", "Sorensen", "Toivonen", "Ueda", "Vasquez"]
ASSISTANT_NAMES = ["Assistant", "Assistant", "Sol", "Juniper", "Atlas", "Pip", "Assistant", "Echo", "Maple"]

CITIES = ["Lisbon", "Porto", "Lyon", "Osaka", "Denver", "Austin", "Nairobi", "Accra", "Toronto", "Montreal",
          "Glasgow", "Leeds", "Bristol", "Krakow", "Valencia", "Seville", "Bologna", "Turin", "Melbourne",
          "Adelaide", "Wellington", "Seattle", "Pittsburgh", "Tucson", "Halifax", "Vancouver", "Dublin", "Cork",
          "Utrecht", "Ghent", "Leipzig", "Hamburg", "Bergen", "Malmo", "Tallinn", "Ljubljana", "Busan", "Hanoi",
          "Cape Town", "Oaxaca", "Medellin", "Lima", "Edinburgh", "Marseille", "Rotterdam", "Brno", "Tampere",
          "Galway", "Aarhus", "Bilbao"]
COMPANIES = ["Northwind Analytics", "Bluefin Robotics", "Halcyon Health", "Corvid Labs", "Tessellate",
             "Brightline Logistics", "Quarry Finch", "Mossgrove Insurance", "Lumenfield", "Orchard Systems",
             "Kestrel Bank", "Pinewood Studios", "Saltmarsh Foods", "Copperleaf", "Driftwood Games",
             "Ironbark Engineering", "Velvet Rope Events", "Marigold Pharma", "Tidewater Energy", "Arclight Media",
             "Greystone Legal", "Hollow Oak Brewing", "Starling Travel", "Cobalt Freight", "Fennel & Rye",
             "Larkspur Schools", "Riverbend Clinic", "Sundial Software", "Wayfarer Maps", "Zephyr Wind"]
TITLES = ["data engineer", "paediatric nurse", "history teacher", "UX researcher", "sous-chef", "structural engineer",
          "paralegal", "veterinary technician", "product manager", "physiotherapist", "accountant",
          "graphic designer", "pharmacist", "site manager", "librarian", "sound engineer", "translator",
          "midwife", "electrician", "copywriter", "lab technician", "urban planner", "dental hygienist"]
DOG_BREEDS = ["beagle", "border collie", "dachshund", "greyhound", "corgi", "labrador", "whippet", "shiba inu",
              "boxer", "schnauzer", "springer spaniel", "poodle"]
CAT_BREEDS = ["tabby", "Maine Coon", "Siamese", "ragdoll", "Bengal", "Norwegian forest cat", "Burmese"]
PET_NAMES = ["Pickle", "Juniper", "Mochi", "Rufus", "Clementine", "Biscotti", "Waffles", "Pepper", "Ziggy",
             "Nutmeg", "Olive", "Bruno", "Tofu", "Hazel", "Sprocket", "Momo", "Basil", "Dumpling", "Marmalade",
             "Pixel", "Noodle", "Gizmo", "Peaches", "Chorizo", "Luna", "Bramble", "Captain", "Fig", "Toast", "Sushi"]
CAR_MODELS = ["Subaru Outback", "Honda Jazz", "Kia Niro", "Volvo V60", "Mazda 3", "Toyota Corolla", "Skoda Octavia",
              "Fiat Panda", "Renault Clio", "Ford Fiesta", "Nissan Leaf", "Peugeot 208", "Hyundai Ioniq", "VW Golf"]
COLORS = ["green", "silver", "dark blue", "red", "white", "black", "mustard yellow", "grey"]
INSTRUMENTS = ["cello", "ukulele", "piano", "violin", "saxophone", "trumpet", "banjo", "harp", "drums", "flute"]
HOBBIES = ["pottery", "bouldering", "salsa dancing", "fencing", "birdwatching", "woodworking", "chess",
           "sourdough baking", "rowing", "knitting", "archery", "life drawing", "kayaking", "beekeeping"]
ALLERGENS = ["shellfish", "peanuts", "penicillin", "sesame", "kiwi", "bee stings", "walnuts", "latex", "mustard"]
LANGUAGES = ["Portuguese", "Japanese", "Korean", "Italian", "Dutch", "Greek", "Swahili", "Finnish", "Turkish",
             "Polish", "Icelandic", "Vietnamese"]
VEGETABLES = ["tomatoes", "courgettes", "chillies", "runner beans", "strawberries", "kale", "radishes",
              "cucumbers", "sugar snap peas", "pumpkins"]
CAFES = ["Bean There", "The Grind House", "Little Fox Coffee", "Kettle & Crumb", "Copper Cup", "Morning Glory",
         "Two Spoons", "Brew Lab", "Cafe Oriel", "The Roastery"]
GYMS = ["Block Shop", "The Foundry", "Ironworks Gym", "Boulder Barn", "Gravity Hall", "Core Collective",
        "Peak Fitness", "Tidal Pool Club", "Northside Leisure Centre"]
TEAMS = ["Harbour City FC", "the Riverside Rovers", "Northgate United", "the Ashford Hawks", "Kingsbridge Athletic",
         "the Millbrook Mariners", "Eastfield Town", "the Copperton Comets"]
BOOKS = ["Piranesi", "The Overstory", "Klara and the Sun", "Station Eleven", "The Remains of the Day",
         "A Gentleman in Moscow", "Pachinko", "The Name of the Wind", "Circe", "Middlemarch",
         "The Left Hand of Darkness", "Never Let Me Go", "Hamnet", "Project Hail Mary", "The Shadow of the Wind"]
DISHES = ["mushroom risotto", "pad thai", "shakshuka", "lasagne", "pho", "chana masala", "paella", "ramen",
          "moussaka", "bibimbap", "jollof rice", "pierogi", "tacos al pastor", "katsu curry"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
COMMUTES = ["bike", "train", "tram", "ferry", "bus", "scooter", "car", "coach"]
DENTISTS = ["Okoye", "Lindgren", "Marchetti", "Haas", "Obi", "Ferrante", "Kaur", "Moretti", "Sandoval", "Whitlock"]
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
                11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen"}

# Each entry alternates user / assistant turns. Placeholders: {city} {city2} {dish} {book} {n}.
CHIT = [
    ["What's a good way to keep basil alive on a windowsill?",
     "Give it lots of light, water when the top of the soil is dry, and pinch off the flower buds so it keeps making leaves."],
    ["How long should I boil an egg for a jammy yolk?", "About six and a half minutes from boiling, then straight into cold water."],
    ["Is it worth learning touch typing as an adult?",
     "Yes. A couple of weeks of 15-minute sessions is usually enough to beat hunt-and-peck, and it pays off for years."],
    ["What's the weather usually like in {city} in spring?",
     "Spring in {city} is changeable: mild days, cool evenings and a fair chance of rain, so layers are the safe bet."],
    ["Can you explain what a Roth IRA is in two sentences?",
     "It's a US retirement account funded with after-tax money. Growth and qualified withdrawals are tax-free."],
    ["Give me a fun fact about octopuses.", "Octopuses have three hearts, and two of them stop beating while they swim."],
    ["How do I get a red wine stain out of a cotton shirt?",
     "Blot, don't rub, then rinse from the back with cold water. A paste of washing-up liquid and hydrogen peroxide usually lifts the rest."],
    ["What's the difference between baking soda and baking powder?",
     "Baking soda is pure sodium bicarbonate and needs an acid to react. Baking powder already contains the acid."],
    ["Any tips for falling asleep faster?",
     "Keep a fixed wake-up time, dim screens an hour before bed, and keep the room cool. If you're awake after 20 minutes, get up briefly."],
    ["Recommend a board game for four people who don't like long rules explanations.",
     "Codenames or Just One: both take two minutes to explain and work well with four."],
    ["Why do onions make you cry?",
     "Cutting them releases enzymes that produce a sulfur compound which irritates your eyes. A sharp knife and a cold onion help."],
    ["What's a quick stretch for a stiff neck after a day at the laptop?",
     "Slow chin tucks and ear-to-shoulder tilts, ten of each, and raise your screen so it sits at eye level."],
    ["How many cups of flour are in a kilo, roughly?", "Roughly eight cups, though it depends a lot on how you scoop."],
    ["Is {dish} hard to make at home?",
     "Not really. Most of the work is prep; a good recipe for {dish} takes under an hour once everything is chopped."],
    ["Have you heard of {book}? Worth reading?",
     "{book} gets strong reviews, and people who like character-driven stories tend to love it."],
    ["Help me write a polite message declining a meeting.",
     "'Thanks for the invite. I can't make this one, but please send notes and I'll follow up with any questions.'"],
    ["What's the best way to clean a cast iron pan?",
     "Hot water and a brush, no soaking. Dry it on the hob and wipe on a thin layer of oil while it's warm."],
    ["Why is the sky blue?",
     "Air molecules scatter short blue wavelengths of sunlight much more than red ones, so blue light reaches your eyes from all directions."],
    ["Can you suggest a name for a neighbourhood book swap?", "How about 'Take One, Leave One' or 'The Little Lending Shelf'?"],
    ["What's a good podcast length for a commute?",
     "Twenty to forty minutes matches most commutes, and series with short episodes are easy to pause."],
    ["Remind me how compound interest works?",
     "You earn interest on the interest: each period's interest is added to the balance, so growth speeds up over time."],
    ["I need a five-minute desk workout.",
     "Try: 60 s of seated marching, 20 chair squats, 15 desk push-ups, 30 s of shoulder rolls, and a one-minute wall sit."],
    ["How do I stop my glasses fogging up with a mask?", "Pinch the mask's wire over your nose and wash the lenses with a drop of soap."],
    ["What's a good houseplant for a dark bathroom?", "A ZZ plant or a pothos will cope with low light and humidity."],
    ["Settle a debate: is a hot dog a sandwich?", "Officially, opinions differ, and that's why the debate never dies. I'd call it its own thing."],
    ["What's a good stretch routine after running?",
     "Calf stretch against a wall, standing quad stretch, hamstring fold, and a hip flexor lunge, about 30 seconds each."],
    ["Explain the offside rule like I'm five.",
     "When the ball is passed forward, an attacker must have at least two defenders, usually a player and the keeper, between them and the goal line."],
    ["What should I pack for a weekend in {city}?",
     "For {city}: comfortable shoes, a light waterproof, a layer for the evening, and a power bank for all the photos."],
    ["How do I make cold brew?",
     "Coarse-ground coffee and cold water at about 1:8, steep 12 to 18 hours in the fridge, then strain."],
    ["Any good ways to remember people's names?",
     "Repeat the name back straight away, link it to something about them, and use it once more before you part."],
    ["What's a good gift for someone who has everything?", "An experience: a cooking class, concert tickets, or a nice dinner out."],
    ["How often should I replace my toothbrush?", "About every three months, or sooner if the bristles splay."],
    ["Can you convert 180 Celsius to Fahrenheit?", "180 °C is 356 °F."],
    ["What's the longest river in Europe?", "The Volga, at about 3,500 km."],
    ["Any tips for a first pottery wheel class?", "Trim your nails, wear clothes you don't mind ruining, and expect your first few pots to collapse."],
    ["How do I politely tell a neighbour their music is too loud?",
     "Go in person at a calm moment, keep it friendly and specific: 'The bass carries into our bedroom after 11, could you turn it down then?'"],
    ["Quick one: is it 'affect' or 'effect' in 'the weather affected my mood'?", "'Affected'. Affect is usually the verb, effect the noun."],
    ["What's a good way to use up stale bread?", "Panzanella, bread pudding, croutons, or blitz it into breadcrumbs and freeze them."],
    ["Recommend a documentary about the ocean.", "Blue Planet II is the classic; My Octopus Teacher if you want something more personal."],
    ["How do I stop procrastinating on boring admin?",
     "Batch it into one 30-minute slot a week, start with the smallest task, and put a timer on."],
    ["I'm thinking about a trip to {city2} someday. What's it known for?",
     "{city2} is known for its food scene, walkable old town and a lively cultural calendar. It's a good long-weekend destination."],
    ["What's a good substitute for buttermilk?", "Milk with a tablespoon of lemon juice or vinegar per cup, left for five minutes."],
    ["How do I back up photos from my phone without paying for cloud storage?",
     "Copy them to a computer or an external drive every month; keep two copies in different places."],
    ["Do you think it will ever be normal to work four days a week?",
     "Several trials have reported good results, so it's becoming more common, but it varies a lot by industry."],
    ["Give me a riddle.", "What has keys but can't open locks? A piano."],
    ["How long do cooked leftovers keep in the fridge?", "Three to four days for most cooked food, kept in a sealed container."],
    ["What's the trick to folding a fitted sheet?", "Tuck the corners into each other in pairs, lay it flat, then fold it into a rectangle."],
    ["Why does my bread come out dense?", "Usually under-proofing or too little kneading; give the dough longer to rise somewhere warm."],
    ["What are good questions to ask at the end of a job interview?",
     "Ask what success looks like in the first six months, what the team is working on, and what the interviewer likes about working there."],
    ["How do I keep my phone battery healthy?", "Avoid heat, keep it roughly between 20 and 80 percent when you can, and use the optimised charging setting."],
    ["Best way to learn to whistle with fingers?", "Tuck your lips over your teeth, put two fingers under the tip of your tongue, and blow hard across it. Practise daily."],
    ["Is it bad to run every day?", "Not necessarily, but mix easy days with harder ones and take a rest day when you feel run down."],
    ["What's a good way to organise a messy inbox?", "Archive everything older than a month, set three folders (act, waiting, reference) and unsubscribe ruthlessly."],
    ["Explain what a sourdough starter actually is.", "A mix of flour and water colonised by wild yeast and bacteria, fed regularly so it stays active."],
]
# short multi-turn follow-ups appended to some chit-chat exchanges
FOLLOWUPS = [["Thanks, that helps.", "Glad to help!"], ["Huh, didn't know that.", "Fun, right?"],
             ["Makes sense.", "Anything else on your mind?"], ["Perfect, thank you.", "You're welcome."],
             ["I'll try that.", "Let me know how it goes."], ["Interesting!", "It is! Happy to dig into more."]]

OPENERS = ["Hi!", "Hey, got a minute?", "Morning.", "Hello again.", "Back again, sorry!", "Evening! A few things today.",
           "hiya", "Hey there.", "Good morning!", "Hello!", "Quick check-in.", "Hi, me again."]
GREETS = ["Hi {name}! What's up?", "Hello! How can I help today?", "Good to see you again. What's on your mind?",
          "Hey {name}, always got a minute. Go ahead.", "Welcome back! What shall we look at?", "Hi! How are things?"]
CLOSERS = [["Thanks, that's all for now.", "Anytime. Talk soon!"], ["ok gotta run", "Bye for now!"],
           ["That's it from me today.", "Have a good one, {name}."], ["Thank you, really.", "Of course. Take care!"],
           ["Right, back to work.", "Good luck with the rest of the day!"]]
ACKS = ["Got it.", "Noted!", "Thanks for telling me.", "Good to know.", "Ha, fair enough.", "Oh nice.", "That's lovely.",
        "Understood.", "I'll keep that in mind.", "Sounds like a lot going on!", "Oh, interesting.", "Love that."]
ASIDE_PRE = ["Ugh, long day.", "Quick one before I forget.", "Random thought.", "Okay, so.", "Unrelated, but",
             "Small update first.", "Not much new here.", "Sorry, my brain is everywhere today."]
PRELUDES = ["Can you help me plan my week?", "I want to set up a little profile so you know me better.",
            "I'm filling in a form and I keep getting distracted.", "Let's do some life admin.",
            "I need to sort out a few things, bear with me.", "Ok, ask me stuff so you can help me better."]
