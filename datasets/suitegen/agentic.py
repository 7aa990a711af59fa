"""The agentic suite: tool-using agent runs whose answers depend on earlier observations."""

from __future__ import annotations

import json as _json
from datetime import date, datetime, timedelta

from suitegen.vocab import CITIES, FEMALE, MALE, SURNAMES
from suitegen.core import Rng, date_gold, date_text
from suitegen.conv import Conv, new_conv, start_date


def hexid(rng: Rng, n: int) -> str:
    return "".join(rng.pick("0123456789abcdef") for _ in range(n))


def alnum(rng: Rng, n: int, alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") -> str:
    return "".join(rng.pick(alphabet) for _ in range(n))


def call(conv: Conv, text: str) -> str:
    return conv.a(text)


class Agentic:
    """One agent conversation: each session is one invocation; tool turns carry long observations."""

    def __init__(self, conv: Conv):
        self.c = conv
        self.rng = conv.rng
        self.pending: list[dict] = []

    def ask(self, question: str, gold, evidence: list[str], after: str | None = None, literal: bool = True, **kw) -> None:
        self.pending.append(dict(question=question, category="agentic", gold=gold, evidence=evidence,
                                 after=after or self.c.last(), literal=literal, **kw))

    def noise(self, kind: str) -> None:
        """An unrelated invocation with a long tool output (asked about at the very end)."""
        NOISE[kind](self)

    def flush(self) -> None:
        end = self.c.last()
        for p in self.pending:
            if p["after"] == "END":
                p["after"] = end
            self.c.probe(**p)


def noise_ops(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(6, 22))
    c.u("Unrelated: check disk usage across the cluster nodes. Anything above 85%?")
    call(c, "Calling `ssh-all \"df -h /var/lib\"`.")
    nodes = [f"node-{rng.pick(['a', 'b', 'c'])}{k:02d}" for k in range(1, 15)]
    full = rng.pick(nodes)
    pct = rng.randint(88, 97)
    rows = ["HOST       Filesystem      Size  Used Avail Use% Mounted on"]
    for nd in nodes:
        use = pct if nd == full else rng.randint(22, 79)
        rows.append(f"{nd:<10} /dev/nvme0n1p2  500G  {use * 5}G  {500 - use * 5}G  {use}%  /var/lib")
    t = c.tool("ssh", "\n".join(rows))
    c.a(f"Only {full} is above 85% ({pct}%). The rest are under 80%.")
    c.u("Thanks, I'll clean it up later.")
    c.a("Okay.")
    ag.ask("Which node was above 85% disk usage when I asked you to check?", full, [t], after="END")


def noise_support(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(8, 18))
    c.u("Separate thing: summarise today's open ticket queue.")
    call(c, "Calling `list_tickets(status=\"open\")`.")
    subjects = ["Where is my order?", "Change delivery address", "Coupon not applied", "Item arrived late", "Wrong size sent",
                "Cancel subscription", "Invoice copy needed", "Password reset not working", "Double charged", "Missing item",
                "Gift wrap request", "Return label broken", "Warranty question", "Stock notification", "Account locked"]
    rows = ["ticket      customer        priority  subject"]
    p1 = None
    for k, subj in enumerate(rng.sample(subjects, 14)):
        tid = f"TCK-{rng.randint(40000, 99999)}"
        pri = "P3" if k else "P1"
        if not k:
            p1 = (tid, subj)
        rows.append(f"{tid:<11} {rng.pick(FEMALE + MALE) + ' ' + rng.pick(SURNAMES)[0] + '.':<15} {pri:<9} {subj}")
    head, body = rows[0], rows[1:]
    rng.shuffle(body)
    t = c.tool("tickets", "\n".join([head] + body))
    c.a(f"14 open tickets, one P1 ({p1[0]}: {p1[1]}), the rest P3.")
    c.u("Ok.")
    c.a("I'll keep an eye on the P1.")
    ag.ask("Which ticket was marked P1 in the open-ticket queue?", p1[0], [t], after="END")


def noise_data(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(8, 19))
    c.u("Side question: which marketing tables do we have, and how big are they?")
    call(c, "Calling `list_tables(schema=\"marketing\")`.")
    names = ["campaign_spend", "email_sends", "email_opens", "web_sessions", "ad_clicks", "attribution_touches", "leads",
             "lead_scores", "utm_dim", "landing_pages", "ab_tests", "ab_assignments", "newsletter_subs", "promo_codes",
             "affiliate_payouts", "social_posts", "survey_responses", "webinar_attendance"]
    rows = ["table                          rows        last_updated"]
    counts = {}
    for nm in names:
        counts[nm] = rng.randint(1_000, 90_000_000)
        rows.append(f"marketing.{nm:<20} {counts[nm]:>12,}  2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}")
    t = c.tool("warehouse", "\n".join(rows))
    pick = rng.pick(names)
    c.a(f"{len(names)} tables; the largest is marketing.{max(names, key=counts.get)}.")
    c.u("Fine.")
    c.a("Let me know if you want any of them profiled.")
    ag.ask(f"How many rows does marketing.{pick} have?", {"text": f"{counts[pick]:,}", "aliases": [str(counts[pick])]}, [t],
           after="END")


def noise_travel(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(7, 22))
    city = rng.pick(CITIES)
    c.u(f"What's the 10-day forecast for {city}?")
    call(c, f"Calling `weather_forecast(city=\"{city}\", days=10)`.")
    d0 = date(2024, rng.randint(3, 10), rng.randint(1, 18))
    rows = ["date        high_c  low_c  rain_pct  wind_kmh  summary"]
    rainiest, best = None, -1
    for k in range(10):
        d = d0 + timedelta(days=k)
        rain = rng.randint(0, 95)
        while rain == best:
            rain = rng.randint(0, 95)
        if rain > best:
            rainiest, best = d, rain
        rows.append(f"{d.isoformat()}  {rng.randint(8, 31):<6}  {rng.randint(0, 18):<5}  {rain:<8}  {rng.randint(3, 45):<8}  "
                    f"{rng.pick(['sunny', 'cloudy', 'showers', 'overcast', 'thunderstorms', 'clear'])}")
    t = c.tool("weather", "\n".join(rows))
    c.a(f"Mostly mixed; the wettest day is {rainiest.isoformat()} ({best}% chance of rain).")
    c.u("Noted.")
    c.a("Pack an umbrella for that one.")
    ag.ask(f"In the {city} forecast, which date had the highest chance of rain?",
           {"text": rainiest.isoformat(), "aliases": date_gold(rainiest)["aliases"] + [date_gold(rainiest)["text"]]}, [t], after="END")


def noise_code(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(8, 23))
    c.u("While you're there, list the TODOs in src/.")
    call(c, "Calling `run(\"grep -rn TODO src/\")`.")
    topics = ["handle leap years", "remove legacy CSV export", "cache exchange rates", "retry on 429", "support negative quantities",
              "migrate to zoneinfo", "paginate the report API", "validate IBAN checksum", "drop Python 3.9 shim",
              "make rounding configurable", "log slow queries", "batch invoice emails", "localise currency symbols",
              "dedupe customer records", "stream large exports"]
    rows = []
    where = {}
    for tp in rng.sample(topics, 13):
        f = f"src/{rng.pick(MODULES)}/{rng.pick(['core', 'api', 'utils', 'models', 'views'])}.py"
        ln = rng.randint(12, 900)
        where[tp] = f
        rows.append(f"{f}:{ln}:    # TODO({rng.pick(DEV_NAMES)}): {tp}")
    t = c.tool("shell", "\n".join(rows))
    tp = rng.pick(sorted(where))
    c.a(f"{len(rows)} TODOs across {len(set(where.values()))} files.")
    c.u("Ok, later.")
    c.a("Sure.")
    ag.ask(f"Which file has the TODO about '{tp}'?", where[tp], [t], after="END")


NOISE = {"ops": noise_ops, "support": noise_support, "data": noise_data, "travel": noise_travel, "code": noise_code}


# ---- ops: a service incident
SERVICES = ["checkout", "payments", "search", "inventory", "notifications", "auth", "catalog", "billing", "shipping", "reviews"]


def ops_scenario(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    svc = rng.pick(SERVICES)
    others = rng.sample([s for s in SERVICES if s != svc], 6)
    bad_pod = f"{svc}-api-{hexid(rng, 9)}-{alnum(rng, 5, 'abcdefghijkmnpqrstuvwxyz23456789')}"
    db_host = f"postgres-replica-{rng.randint(1, 4)}"
    wrong_port, right_port = rng.pick([(5433, 5432), (6543, 5432), (5434, 5432), (5442, 5432)])
    pool_old, pool_new = rng.pick([(10, 25), (8, 20), (16, 40), (12, 30)])
    ip = f"10.{rng.randint(20, 60)}.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
    timeout = rng.pick([1500, 2000, 2500, 3000])
    # invocation 1
    c.session(hour=rng.randint(1, 23))
    c.u(f"The {svc} service is throwing 502s in production. Investigate and tell me what's wrong.")
    call(c, f"I'll start by listing the pods in the `{svc}` namespace.\n\nCalling `kubectl get pods -n {svc}`.")
    rows = ["NAME                                   READY   STATUS             RESTARTS        AGE"]
    pods = []
    for k in range(rng.randint(11, 15)):
        name = f"{rng.pick(others + [svc])}-{rng.pick(['api', 'worker', 'cron'])}-{hexid(rng, 9)}-{alnum(rng, 5, 'abcdefghijkmnpqrstuvwxyz23456789')}"
        pods.append(f"{name:<38} 1/1     Running            {rng.randint(0, 2)}               {rng.randint(1, 30)}d")
    pods.insert(rng.randrange(len(pods)), f"{bad_pod:<38} 0/1     CrashLoopBackOff   {rng.randint(14, 60)} (2m ago)     {rng.randint(1, 5)}h")
    t_pods = c.tool("kubectl", "\n".join(rows + pods))
    call(c, f"`{bad_pod}` is in CrashLoopBackOff. Fetching its logs.\n\nCalling `kubectl logs {bad_pod} -n {svc} --tail=40`.")
    logs = []
    base = datetime(2024, 1, 1, rng.randint(0, 23), rng.randint(0, 59), 0)
    noise = ["INFO  starting http server on :8080", "INFO  loaded 214 feature flags", "DEBUG warming cache shard {k}",
             "INFO  health check ok", "WARN  slow request GET /api/v2/items took 812ms", "INFO  metrics exporter started",
             "DEBUG opened connection to redis-main:6379", "INFO  registered 37 routes", "DEBUG gc pause 12ms"]
    err_at = rng.randint(18, 28)
    for k in range(34):
        ts = (base + timedelta(seconds=k * 3)).strftime("%H:%M:%S")
        if k == err_at:
            logs.append(f"{ts} ERROR db: dial tcp {ip}:{wrong_port}: connect: connection refused (host={db_host})")
        elif k == err_at + 1:
            logs.append(f"{ts} FATAL could not initialise connection pool after 5 attempts, exiting")
        else:
            logs.append(f"{ts} {rng.pick(noise).format(k=k)}")
    t_logs = c.tool("kubectl", "\n".join(logs))
    ag.ask(f"Which pod was crash-looping in the listing I fetched at the start of this task?", bad_pod, [t_pods])
    call(c, f"The pod can't reach the database at {ip}:{wrong_port}. Let me check the service config.\n\nCalling `read_file config/{svc}.yaml`.")
    cfg = [f"service: {svc}", "replicas: 3", "http:", "  port: 8080", f"  timeout_ms: {timeout}", "  max_body_kb: 512", "db:",
           f"  host: {db_host}", f"  port: {wrong_port}", f"  name: {svc}_prod", "  sslmode: require", "pool:",
           f"  max_size: {pool_old}", "  min_idle: 2", "  acquire_timeout_ms: 800", "cache:", "  backend: redis",
           "  host: redis-main", "  ttl_s: 300", "features:"]
    cfg += [f"  {f}: {rng.pick(['true', 'false'])}" for f in rng.sample(
        ["new_pricing", "dark_mode", "async_receipts", "beta_search", "gift_cards", "loyalty_points", "express_lane", "geo_routing"], 6)]
    cfg += ["logging:", "  level: info", "  format: json", "tracing:", "  sample_rate: 0.05"]
    t_cfg = c.tool("read_file", "\n".join(cfg))
    call(c, f"The config points at port {wrong_port}. Checking which port the database service actually exposes.\n\n"
            f"Calling `kubectl get svc -n data`.")
    svcs = ["NAME                 TYPE        CLUSTER-IP      PORT(S)"]
    for k in range(1, 5):
        svcs.append(f"postgres-replica-{k}   ClusterIP   10.{rng.randint(20, 60)}.{k}.{rng.randint(2, 250):<6} {right_port}/TCP")
    svcs.append(f"postgres-primary     ClusterIP   10.{rng.randint(20, 60)}.0.{rng.randint(2, 250):<6} {right_port}/TCP")
    svcs.append("redis-main           ClusterIP   10.43.9.12      6379/TCP")
    t_svc = c.tool("kubectl", "\n".join(svcs))
    ag.ask(f"What database port does the {svc} config file specify?", str(wrong_port), [t_cfg])
    ag.ask("What IP address was the failing database connection trying to reach?", ip, [t_logs])
    c.a(f"Root cause: `config/{svc}.yaml` sets `db.port: {wrong_port}`, but {db_host} listens on {right_port}. "
        f"The pod {bad_pod} fails to build its connection pool and exits. Fix: set the port to {right_port} and redeploy.")
    c.u("Good. Apply the fix.")
    call(c, f"Calling `apply_patch config/{svc}.yaml db.port={right_port}` and `kubectl rollout restart deploy/{svc}-api`.")
    t_patch = c.tool("deploy", f"patched config/{svc}.yaml (1 line changed)\ndeployment.apps/{svc}-api restarted\n"
                               f"waiting for rollout... 3 of 3 updated replicas are available")
    c.a("Fixed and rolled out; all three replicas are healthy.")
    ag.noise("ops")
    # invocation 2
    c.session(gap_days=rng.randint(1, 4))
    c.u(f"Follow-up on the {svc} incident: traffic doubled, bump the connection pool and confirm error rates are fine.")
    ag.ask(f"Before any change today, what was the {svc} connection pool max_size?", str(pool_old), [t_cfg])
    call(c, f"Calling `apply_patch config/{svc}.yaml pool.max_size={pool_new}`.")
    t_pool = c.tool("deploy", f"patched config/{svc}.yaml: pool.max_size {pool_old} -> {pool_new}\nconfigmap/{svc}-config configured")
    call(c, f"Checking error rates.\n\nCalling `promql sum(rate(http_requests_total{{service=\"{svc}\",code=~\"5..\"}}[5m]))`.")
    series = [f"{(base + timedelta(minutes=5 * k)).strftime('%H:%M')}  {rng.uniform(0, 0.4):.3f}" for k in range(24)]
    spike = rng.randrange(4, 20)
    peak = f"{rng.uniform(3.5, 9.5):.2f}"
    series[spike] = series[spike].split("  ")[0] + "  " + peak
    t_prom = c.tool("prometheus", "time   5xx_per_s\n" + "\n".join(series))
    c.a(f"Error rate is near zero except one spike of {peak}/s at {series[spike].split()[0]}, which lines up with the pool resize restart.")
    ag.ask("What was the peak 5xx rate in the Prometheus query?", peak, [t_prom])
    c.u("Okay. Anything else?")
    c.a("Nothing urgent. I'd add an alert on CrashLoopBackOff for this namespace.")
    ag.noise("ops")
    # invocation 3
    c.session(gap_days=rng.randint(3, 9))
    c.u(f"Write the postmortem summary for the {svc} outage: which pod, what the bad setting was, and what we changed.")
    ag.ask("Which pod crash-looped during the original outage?", bad_pod, [t_pods])
    ag.ask(f"What port was the database actually listening on?", str(right_port), [t_svc])
    ag.ask(f"What is the {svc} pool max_size after the follow-up change?", str(pool_new), [t_pool], superseded=[str(pool_old)])
    c.a(f"Postmortem: pod {bad_pod} crash-looped because `db.port` was {wrong_port} instead of {right_port}. "
        f"We corrected the port, redeployed, and later raised the pool to {pool_new}.")
    c.u("Ship it.")
    c.a("Done.")


# ---- support: an e-commerce customer case
PRODUCTS = [("Trail running shoes", "SH"), ("Espresso grinder", "KG"), ("Noise-cancelling headphones", "AU"),
            ("Cast iron skillet", "KC"), ("Yoga mat", "SP"), ("Desk lamp", "HL"), ("Rain jacket", "OW"),
            ("Mechanical keyboard", "PC"), ("Wool blanket", "HT"), ("Water filter jug", "KW"), ("Bike light set", "BK"),
            ("Ceramic teapot", "KT"), ("Backpack 28L", "BG"), ("Electric toothbrush", "HB")]
CARRIERS = ["DHL", "UPS", "PostNord", "DPD", "Royal Mail", "GLS"]
DEPOTS = ["Leipzig hub", "East Midlands depot", "Rotterdam sorting centre", "Lyon St-Exupery hub", "Madrid Coslada depot"]


def support_scenario(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    cust_first, cust_last = rng.fresh(FEMALE + MALE, c.used), rng.pick(SURNAMES)
    cust_id = f"C-{rng.randint(100000, 999999)}"
    tier = rng.pick(["Gold", "Silver", "Platinum", "Bronze"])
    orders = []
    for k in range(5):
        items = rng.sample(PRODUCTS, rng.randint(1, 3))
        orders.append({"id": f"ORD-{rng.randint(10000000, 99999999)}", "date": f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}",
                       "items": [(n, f"{code}-{rng.randint(1000, 9999)}", rng.randint(15, 320)) for n, code in items],
                       "status": rng.pick(["delivered", "delivered", "delivered", "returned"])})
    late = orders[rng.randrange(5)]
    late["status"] = "in_transit"
    carrier, depot = rng.pick(CARRIERS), rng.pick(DEPOTS)
    tracking = f"{alnum(rng, 2)}{rng.randint(100000000, 999999999)}{alnum(rng, 2)}"
    ticket = f"TCK-{rng.randint(40000, 99999)}"
    refund_id = f"RF-{alnum(rng, 8)}"
    damaged = late["items"][0]
    c.session(hour=rng.randint(8, 18))
    c.u(f"Customer {cust_first} {cust_last} ({cust_id}) says their latest order never arrived. Can you look into it?")
    call(c, f"Looking up the customer.\n\nCalling `lookup_customer(id=\"{cust_id}\")`.")
    cust = {"id": cust_id, "name": f"{cust_first} {cust_last}", "email": f"{cust_first.lower()}.{cust_last.lower()}@example.com",
            "tier": tier, "since": f"20{rng.randint(15, 22)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
            "address": {"line1": f"{rng.randint(1, 180)} {rng.pick(['Elm', 'Harbour', 'Mill', 'Station', 'Castle'])} Street",
                        "city": rng.pick(CITIES), "postcode": f"{rng.randint(10000, 99999)}"},
            "orders": [{"id": o["id"], "date": o["date"], "status": o["status"],
                        "total_eur": sum(i[2] for i in o["items"])} for o in orders],
            "flags": {"vip_support": tier in ("Gold", "Platinum"), "marketing_opt_in": rng.pick([True, False])}}
    t_cust = c.tool("crm", _json.dumps(cust, indent=2))
    call(c, f"Order {late['id']} is the one still in transit. Fetching it.\n\nCalling `get_order(id=\"{late['id']}\")`.")
    events = []
    d0 = datetime(2024, rng.randint(1, 9), rng.randint(1, 15), 9)
    steps = ["label created", "picked up by carrier", "arrived at origin facility", "departed origin facility",
             f"arrived at {depot}", f"held at {depot}: address verification required"]
    for k, st in enumerate(steps):
        events.append({"time": (d0 + timedelta(hours=11 * k)).isoformat(), "event": st})
    order = {"id": late["id"], "customer": cust_id, "status": "in_transit",
             "items": [{"name": n, "sku": sku, "qty": 1, "price_eur": p} for n, sku, p in late["items"]],
             "shipping": {"carrier": carrier, "tracking": tracking, "service": rng.pick(["standard", "express"]),
                          "events": events}}
    t_order = c.tool("orders", _json.dumps(order, indent=2))
    ag.ask(f"Which order is the one still in transit for {cust_first}?", late["id"], [t_cust])
    call(c, f"The parcel is held at the {depot} pending address verification. Opening a carrier ticket.\n\n"
            f"Calling `create_ticket(carrier=\"{carrier}\", tracking=\"{tracking}\")`.")
    t_ticket = c.tool("tickets", f"ticket {ticket} created with {carrier}; expected response within 48h")
    ag.ask("Where is the parcel being held?", depot, [t_order])
    c.a(f"The parcel ({carrier} {tracking}) is held at the {depot} for address verification. I opened carrier ticket {ticket}.")
    ag.noise("support")
    # invocation 2
    c.session(gap_days=rng.randint(2, 5))
    c.u(f"{cust_first} got the parcel but the {damaged[0].lower()} arrived damaged. Refund that item.")
    ag.ask(f"What is the tracking number of {cust_first}'s delayed order?", tracking, [t_order])
    call(c, f"Refunding {damaged[0]} ({damaged[1]}) from {late['id']}.\n\nCalling `issue_refund(order=\"{late['id']}\", sku=\"{damaged[1]}\")`.")
    t_ref = c.tool("payments", _json.dumps({"refund_id": refund_id, "order": late["id"], "sku": damaged[1],
                                            "amount_eur": damaged[2], "method": "original payment", "eta_days": rng.randint(3, 7)}, indent=2))
    ag.ask("What refund ID was issued for the damaged item?", refund_id, [t_ref])
    c.a(f"Refund {refund_id} for €{damaged[2]} is on its way to the original payment method.")
    ag.noise("support")
    # invocation 3
    c.session(gap_days=rng.randint(6, 12))
    c.u(f"{cust_first} {cust_last} says the refund still hasn't shown up. What do we know?")
    ag.ask(f"What refund ID did we issue to {cust_first}?", refund_id, [t_ref])
    ag.ask("How much was refunded, in euros?", {"text": str(damaged[2]), "aliases": [f"€{damaged[2]}", f"{damaged[2]} euros"]}, [t_ref])
    ag.ask(f"What is the SKU of the damaged item?", damaged[1], [t_order, t_ref])
    ag.ask(f"What loyalty tier is {cust_first}?", tier, [t_cust])
    ag.ask("What carrier ticket number was opened about the held parcel?", ticket, [t_ticket])
    call(c, f"Calling `get_refund(id=\"{refund_id}\")`.")
    c.tool("payments", _json.dumps({"refund_id": refund_id, "status": "settled", "settled_at": "T+4d",
                                    "bank_reference": f"BR{rng.randint(10 ** 9, 10 ** 10 - 1)}"}, indent=2))
    c.a(f"Refund {refund_id} settled; banks can take a few more days to display it. I can send {cust_first} the bank reference.")


# ---- data: an analytics request
REGIONS = ["Nordics", "Iberia", "Benelux", "DACH", "Baltics", "Balkans", "UK & Ireland", "France", "Italy", "Poland",
           "Central Europe", "Turkey", "Greece", "Romania"]
PRODUCT_LINES = ["Starter plan", "Pro plan", "Enterprise", "Add-on storage", "Support contracts", "Training", "Marketplace apps",
                 "Hardware kits", "API credits", "Consulting"]


def data_scenario(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    regions = rng.sample(REGIONS, 12)
    table = []
    for r in regions:
        q1 = rng.randint(400, 4000)
        g = rng.uniform(-12, 28)
        q2 = int(q1 * (1 + g / 100))
        table.append((r, q1, q2, round(g, 1)))
    top = max(table, key=lambda x: x[3])
    worst = min(table, key=lambda x: x[3])
    pick = rng.pick([t for t in table if t not in (top, worst)])
    c.session(hour=rng.randint(8, 19))
    c.u("Which region grew fastest from Q1 to Q2 this year? Use the sales warehouse.")
    call(c, "Checking the schema first.\n\nCalling `describe_table(\"sales.revenue_by_region\")`.")
    cols = ["region TEXT", "quarter TEXT", "revenue_keur INTEGER", "orders INTEGER", "avg_order_eur NUMERIC",
            "new_customers INTEGER", "churned_customers INTEGER", "currency TEXT", "fx_rate NUMERIC", "channel TEXT",
            "segment TEXT", "updated_at TIMESTAMP", "source_system TEXT", "is_restated BOOLEAN"]
    c.tool("warehouse", "column                 type\n" + "\n".join(f"{x.split()[0]:<22} {x.split()[1]}" for x in cols))
    call(c, "Calling `sql(\"SELECT region, q1, q2, growth_pct FROM ... ORDER BY region\")`.")
    lines = ["region            q1_keur   q2_keur   growth_pct"]
    lines += [f"{r:<17} {a:>7}   {b:>7}   {g:>9}" for r, a, b, g in sorted(table)]
    t_tab = c.tool("warehouse", "\n".join(lines))
    c.a(f"{top[0]} grew fastest ({top[3]}%). {worst[0]} shrank the most ({worst[3]}%).")
    ag.ask("Which region had the highest Q1-to-Q2 growth?", top[0], [t_tab])
    ag.ask(f"What was {pick[0]}'s Q2 revenue in thousands of euros?", str(pick[2]), [t_tab])
    ag.noise("data")
    # invocation 2: breakdown
    c.session(gap_days=rng.randint(1, 3))
    c.u("Break the fastest-growing region down by product line, with margins.")
    ag.ask("Which region did the earlier analysis identify as the fastest-growing?", top[0], [t_tab])
    call(c, f"Calling `sql(\"SELECT product_line, revenue_keur, margin_pct FROM ... WHERE region = '{top[0]}'\")`.")
    lines2 = ["product_line         revenue_keur   margin_pct"]
    pl = rng.sample(PRODUCT_LINES, 9)
    margins = {p: round(rng.uniform(4, 71), 1) for p in pl}
    for p in pl:
        lines2.append(f"{p:<20} {rng.randint(30, 900):>12}   {margins[p]:>10}")
    t_pl = c.tool("warehouse", "\n".join(lines2))
    low = min(pl, key=lambda p: margins[p])
    hi = max(pl, key=lambda p: margins[p])
    c.a(f"In {top[0]}, {hi} has the best margin ({margins[hi]}%) and {low} the worst ({margins[low]}%).")
    ag.ask(f"Which product line had the lowest margin in {top[0]}?", low, [t_pl])
    ag.noise("data")
    # invocation 3: summary email
    c.session(gap_days=rng.randint(2, 6))
    c.u("Draft a three-line summary email for the leadership team from what we found this week.")
    ag.ask("Which region shrank the most between Q1 and Q2?", worst[0], [t_tab])
    ag.ask("What was the growth percentage of the fastest-growing region?",
           {"text": f"{top[3]}%", "aliases": [str(top[3]), f"{top[3]} percent"]}, [t_tab])
    ag.ask("Which product line had the best margin in the breakdown?", hi, [t_pl])
    c.a(f"Subject: Q2 regional results\n- {top[0]} grew fastest at {top[3]}%.\n- Within it, {hi} leads margins; {low} trails.\n"
        f"- {worst[0]} declined {worst[3]}% and needs a closer look.")


# ---- travel: booking across invocations
AIRLINES = [("TP", "TAP"), ("LH", "Lufthansa"), ("KL", "KLM"), ("IB", "Iberia"), ("SK", "SAS"), ("AY", "Finnair"),
            ("EI", "Aer Lingus"), ("LX", "SWISS")]
HOTEL_WORDS = ["Harbour", "Garden", "Old Town", "Riverside", "Central", "Park", "Station", "Lighthouse", "Cathedral", "Market"]


def travel_scenario(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    a, b = rng.sample(CITIES, 2)
    d = date(2024, rng.randint(3, 11), rng.randint(1, 25))
    flights = []
    for k in range(15):
        code, name = rng.pick(AIRLINES)
        dep = rng.randint(6, 21)
        dur = rng.randint(2, 6)
        stops = rng.pick([0, 0, 1, 1, 2])
        flights.append({"flight": f"{code}{rng.randint(100, 9999)}", "airline": name, "dep": f"{dep:02d}:{rng.pick(['05', '20', '35', '50'])}",
                        "arr": f"{(dep + dur + stops) % 24:02d}:{rng.pick(['10', '25', '40', '55'])}", "stops": stops,
                        "price_eur": rng.randint(89, 640)})
    nonstop = [f for f in flights if f["stops"] == 0] or [flights[0]]
    if not any(f["stops"] == 0 for f in flights):
        flights[0]["stops"] = 0
    chosen = min(nonstop, key=lambda f: f["price_eur"])
    cheapest = min(flights, key=lambda f: f["price_eur"])
    pnr = alnum(rng, 6)
    seat = f"{rng.randint(3, 38)}{rng.pick('ACDF')}"
    c.session(hour=rng.randint(8, 21))
    c.u(f"Book me the cheapest nonstop flight from {a} to {b} on {date_text(d)}. Aisle if possible.")
    call(c, f"Calling `search_flights(from=\"{a}\", to=\"{b}\", date=\"{d.isoformat()}\")`.")
    lines = ["flight   airline      dep    arr    stops  price_eur"]
    lines += [f"{f['flight']:<8} {f['airline']:<12} {f['dep']}  {f['arr']}  {f['stops']:<5}  {f['price_eur']}" for f in flights]
    t_search = c.tool("flights", "\n".join(lines))
    call(c, f"The cheapest nonstop is {chosen['flight']} at €{chosen['price_eur']}. Booking it.\n\n"
            f"Calling `book_flight(flight=\"{chosen['flight']}\", seat_pref=\"aisle\")`.")
    t_book = c.tool("flights", f"BOOKED\nconfirmation: {pnr}\nflight: {chosen['flight']} {a}-{b} {d.isoformat()} {chosen['dep']}\n"
                               f"seat: {seat}\nfare: €{chosen['price_eur']} (economy light, 1 cabin bag)")
    ag.ask("What is the booking confirmation code for the flight?", pnr, [t_book])
    ag.ask("What was the price of the cheapest option in the search results, stops included?",
           {"text": f"€{cheapest['price_eur']}", "aliases": [str(cheapest["price_eur"]), f"{cheapest['price_eur']} euros"]}, [t_search])
    c.a(f"Booked {chosen['flight']}, confirmation {pnr}, seat {seat}.")
    ag.noise("travel")
    # invocation 2: hotel
    c.session(gap_days=rng.randint(1, 5))
    c.u(f"Now find me a hotel in {b} near the conference centre, under €180 a night, for 3 nights.")
    hotels = []
    for k in range(8):
        hotels.append({"name": f"Hotel {rng.pick(HOTEL_WORDS)} {rng.pick(['Inn', 'Suites', 'House', 'Lodge', 'Rooms'])}",
                       "km": round(rng.uniform(0.2, 6.5), 1), "price": rng.randint(95, 320), "rating": round(rng.uniform(6.5, 9.6), 1)})
    names = set()
    for h in hotels:  # unique names
        while h["name"] in names:
            h["name"] += " II"
        names.add(h["name"])
    ok = [h for h in hotels if h["price"] < 180] or [hotels[0]]
    if not any(h["price"] < 180 for h in hotels):
        hotels[0]["price"] = 170
    hotel = min(ok, key=lambda h: h["km"])
    href = f"HB-{rng.randint(1000000, 9999999)}"
    call(c, f"Calling `search_hotels(city=\"{b}\", near=\"conference centre\", nights=3)`.")
    t_hot = c.tool("hotels", "name                      km    €/night  rating\n" +
                   "\n".join(f"{h['name']:<25} {h['km']:<5} {h['price']:<8} {h['rating']}" for h in hotels))
    call(c, f"Closest under budget: {hotel['name']} ({hotel['km']} km, €{hotel['price']}). Booking.\n\n"
            f"Calling `book_hotel(name=\"{hotel['name']}\", nights=3)`.")
    t_hbook = c.tool("hotels", f"CONFIRMED {href}\n{hotel['name']}, 3 nights from {d.isoformat()}, €{hotel['price'] * 3} total, free cancellation until 48h before")
    ag.ask("What is the flight confirmation code from the earlier booking?", pnr, [t_book])
    ag.ask("Which hotel was booked?", hotel["name"], [t_hbook])
    c.a(f"Booked {hotel['name']} ({href}).")
    ag.noise("travel")
    # invocation 3: change
    c.session(gap_days=rng.randint(2, 8))
    c.u("My meeting moved a day later. Move the flight and the hotel by one day.")
    ag.ask("Which flight number was originally booked?", chosen["flight"], [t_book])
    new_flight = f"{chosen['flight'][:2]}{rng.randint(100, 9999)}"
    call(c, f"Calling `change_flight(confirmation=\"{pnr}\", date=\"{(d + timedelta(days=1)).isoformat()}\")`.")
    t_chg = c.tool("flights", f"CHANGED\nconfirmation: {pnr}\nnew flight: {new_flight} {a}-{b} {(d + timedelta(days=1)).isoformat()}\n"
                              f"change fee: €{rng.randint(25, 90)}\nseat: {seat}")
    call(c, f"Calling `modify_hotel(ref=\"{href}\", shift_days=1)`.")
    c.tool("hotels", f"MODIFIED {href}: check-in {(d + timedelta(days=1)).isoformat()}, 3 nights")
    ag.ask("What is the new flight number after the change?", new_flight, [t_chg], superseded=[chosen["flight"]])
    ag.ask("What is the hotel booking reference?", href, [t_hbook])
    c.a(f"Done: now on {new_flight}, same confirmation {pnr}; hotel {href} shifted by one day.")


# ---- code: fixing a failing test suite
DEV_NAMES = ["alice", "bharat", "chen", "dora", "emil", "fatima", "gwen", "hiro", "ivan", "jules"]
MODULES = ["pricing", "invoices", "tax", "shipping", "discounts", "currency", "reports", "accounts"]


def code_scenario(ag: Agentic) -> None:
    c, rng = ag.c, ag.rng
    mod = rng.pick(MODULES)
    funcs = ["round_half_up", "apply_discount", "net_total", "vat_for", "format_amount", "parse_amount", "split_payment"]
    bad_func = rng.pick(funcs)
    tests = [f"tests/test_{m}.py::test_{f}_{k}" for m in rng.sample(MODULES, 5) for f in rng.sample(funcs, 4) for k in range(1, 4)]
    rng.shuffle(tests)
    failing = [f"tests/test_{mod}.py::test_{bad_func}_negative", f"tests/test_{mod}.py::test_{bad_func}_half_cent"]
    commits = []
    for k in range(10):
        commits.append({"hash": hexid(rng, 40), "author": rng.pick(DEV_NAMES), "days": k,
                        "msg": rng.pick(["bump deps", "docs: fix typo", f"refactor {rng.pick(MODULES)} module", "ci: cache pip",
                                         "add logging", f"feat: {rng.pick(MODULES)} export", "tidy imports", "fix flaky test"])})
    culprit = commits[rng.randint(1, 6)]
    culprit["msg"] = f"perf: simplify {bad_func} in {mod}"
    culprit_author = culprit["author"]
    py_old, py_new = "3.11", "3.12"
    c.session(hour=rng.randint(8, 23))
    c.u("Tests are failing on main. Find out why and fix it.")
    call(c, "Running the test suite.\n\nCalling `run(\"pytest -q\")`.")
    out = []
    for t in tests[:52]:
        out.append(f"{t} PASSED")
    for f in failing:
        out.insert(rng.randrange(len(out)), f"{f} FAILED")
    out += ["", "=================================== FAILURES ===================================",
            f"___ test_{bad_func}_negative ___", f"    assert {bad_func}(-2.5) == -3", f"E   AssertionError: assert -2 == -3",
            f"___ test_{bad_func}_half_cent ___", f"    assert {bad_func}(0.125, places=2) == 0.13", "E   AssertionError: assert 0.12 == 0.13",
            f"============ 2 failed, {len(tests[:52])} passed in {rng.uniform(2, 9):.2f}s ============"]
    t_tests = c.tool("shell", "\n".join(out))
    ag.ask("Which function do both failing tests exercise?", bad_func, [t_tests])
    call(c, f"Both failures are in `{bad_func}`. Checking recent history.\n\nCalling `run(\"git log --oneline -10 --format='%H %an %s'\")`.")
    t_log = c.tool("shell", "\n".join(f"{x['hash']} {x['author']} {x['msg']}" for x in commits))
    call(c, f"Commit {culprit['hash'][:10]} by {culprit_author} touched `{bad_func}`. Let me see the diff.\n\n"
            f"Calling `run(\"git show {culprit['hash'][:10]} -- src/{mod}.py\")`.")
    t_diff = c.tool("shell", f"commit {culprit['hash']}\nAuthor: {culprit_author} <{culprit_author}@example.dev>\n\n"
                             f"    perf: simplify {bad_func} in {mod}\n\n--- a/src/{mod}.py\n+++ b/src/{mod}.py\n"
                             f"@@ def {bad_func}(x, places=0):\n-    q = Decimal(1).scaleb(-places)\n"
                             f"-    return float(Decimal(str(x)).quantize(q, rounding=ROUND_HALF_UP))\n+    return round(x, places)")
    ag.ask("Who authored the commit that broke the tests?", culprit_author, [t_log, t_diff])
    call(c, f"`round()` uses banker's rounding, so halves go to even. Reverting to Decimal with ROUND_HALF_UP.\n\n"
            f"Calling `apply_patch src/{mod}.py` then `run(\"pytest -q\")`.")
    c.tool("shell", f"patched src/{mod}.py\n{len(tests[:52]) + 2} passed in {rng.uniform(2, 9):.2f}s")
    c.a(f"Fixed: restored ROUND_HALF_UP in `{bad_func}`; all tests pass.")
    ag.noise("code")
    # invocation 2: CI config
    c.session(gap_days=rng.randint(1, 4))
    c.u(f"Make sure CI runs on Python {py_new} too.")
    call(c, "Calling `read_file(\".github/workflows/ci.yml\")`.")
    cache_key = f"pip-{hexid(rng, 8)}"
    ci = ["name: ci", "on:", "  push:", "    branches: [main]", "  pull_request:", "jobs:", "  test:", "    runs-on: ubuntu-22.04",
          "    strategy:", "      matrix:", f"        python: [\"3.10\", \"{py_old}\"]", "    steps:", "      - uses: actions/checkout@v4",
          "      - uses: actions/setup-python@v5", "        with:", "          python-version: ${{ matrix.python }}",
          "      - uses: actions/cache@v4", "        with:", "          path: ~/.cache/pip", f"          key: {cache_key}",
          "      - run: pip install -e .[dev]", "      - run: pytest -q --timeout=120", "  lint:", "    runs-on: ubuntu-22.04",
          "    steps:", "      - uses: actions/checkout@v4", "      - run: pipx run ruff check ."]
    t_ci = c.tool("read_file", "\n".join(ci))
    ag.ask("Which commit hash introduced the rounding bug (first 10 characters are enough)?",
           {"text": culprit["hash"][:10], "aliases": [culprit["hash"]]}, [t_log, t_diff])
    call(c, f"Adding {py_new} to the matrix.\n\nCalling `apply_patch .github/workflows/ci.yml`.")
    c.tool("shell", "patched .github/workflows/ci.yml (1 line changed)")
    ag.ask("What cache key does the CI workflow use for pip?", cache_key, [t_ci])
    c.a(f"CI now runs on 3.10, {py_old} and {py_new}.")
    ag.noise("code")
    # invocation 3: release notes
    c.session(gap_days=rng.randint(2, 7))
    c.u("Write the release notes for this week's fixes.")
    ag.ask("Which two tests were failing before the fix?", [failing[0].split("::")[1], failing[1].split("::")[1]], [t_tests],
           gold_match="all")
    ag.ask("In which module was the rounding bug?", mod, [t_diff])
    c.a(f"Release notes:\n- Fixed rounding in `{mod}.{bad_func}` (regression from {culprit['hash'][:10]}).\n- CI now also tests Python {py_new}.")


def long_audit_scenario(ag: Agentic) -> None:
    """One long invocation (14+ tool steps with long observations) so working memory must grow and
    be compressed; the user states personal facts in the middle of the task (a busy agent must
    notice them); probes in the same and in a later invocation need early observations."""
    c, rng = ag.c, ag.rng
    hosts = [f"{rng.pick(['edge', 'core', 'db', 'cache'])}-{rng.pick(['fra', 'ams', 'iad', 'sin'])}-{k:02d}" for k in range(1, 15)]
    expiring = rng.sample(range(len(hosts)), 2)
    kernels = {h: f"5.{rng.randint(4, 19)}.{rng.randint(0, 199)}" for h in hosts}
    c.session(hour=rng.randint(7, 19))
    c.u("Audit every host in the fleet list: kernel version and TLS certificate expiry. Go host by host and report at the end.")
    obs: dict[str, str] = {}
    expiry: dict[str, str] = {}
    for k, host in enumerate(hosts):
        call(c, f"Calling `ssh {host} 'uname -r; openssl x509 -enddate -noout -in /etc/ssl/host.pem; df -h /; uptime'`.")
        day = date(2024, 1, 1) + timedelta(days=rng.randint(3, 20) if k in expiring else rng.randint(120, 700))
        expiry[host] = day.isoformat()
        rows = [f"$ uname -r", kernels[host], "$ openssl x509 -enddate -noout", f"notAfter={day.strftime('%b')} {day.day} 12:00:00 {day.year} GMT",
                "$ df -h /", "Filesystem      Size  Used Avail Use% Mounted on",
                f"/dev/sda1       {rng.pick([80, 120, 200])}G   {rng.randint(10, 70)}G  {rng.randint(10, 90)}G  {rng.randint(12, 88)}% /",
                "$ uptime", f" {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 up {rng.randint(2, 400)} days, load average: "
                f"{rng.randint(0, 3)}.{rng.randint(0, 99):02d}, {rng.randint(0, 3)}.{rng.randint(0, 99):02d}, {rng.randint(0, 3)}.{rng.randint(0, 99):02d}"]
        rows += [f"# motd: {rng.pick(['maintenance window Sundays 02:00 UTC', 'managed by config v3', 'do not reboot without a ticket'])}"
                 for _ in range(4)]
        obs[host] = c.tool("ssh", "\n".join(rows))
        if k == 5:  # the user interjects with durable personal facts while the task is running
            city = rng.fresh(CITIES, c.used)
            phone = f"+1 {rng.randint(200, 989)} {rng.randint(200, 989)} {rng.randint(1000, 9999)}"
            u = c.u(f"While you're at it, note that I'm on call from next Monday and my on-call phone is {phone}. "
                    f"Also I'm relocating to {city} in March.")
            c.a("Noted. Continuing the audit.")
            ag.ask("What is my on-call phone number?", phone, [u], after="END")
            ag.ask("Which city am I relocating to?", city, [u], after="END")
        if k == 12:  # deep into the same invocation: a value from an early observation
            first = hosts[0]
            ag.ask(f"Which kernel version did {first} report?", kernels[first], [obs[first]])
    soon = [hosts[i] for i in sorted(expiring)]
    c.a(f"Audit done. Certificates expiring within three weeks: {soon[0]} and {soon[1]}. All other certificates are valid for months.")
    # a later invocation asks about early observations
    c.session(gap_days=rng.randint(1, 3), hour=rng.randint(8, 18))
    c.u("Quick one before I renew the certificates: anything else I should know?")
    c.a("Only the two expiring certificates from yesterday's audit.")
    h2 = hosts[1]
    ag.ask(f"When does the TLS certificate on {h2} expire?", date_gold(date.fromisoformat(expiry[h2])), [obs[h2]], after="END")
    ag.ask(f"Which kernel version did {hosts[3]} report in the audit?", kernels[hosts[3]], [obs[hosts[3]]], after="END")


AGENTIC_SCENARIOS = [ops_scenario, support_scenario, data_scenario, travel_scenario, code_scenario, ops_scenario, support_scenario, long_audit_scenario, long_audit_scenario]


def suite_agentic(rng: Rng) -> list[Conv]:
    """Tool-using agent invocations whose answers depend on earlier observations (same or earlier invocation)."""
    convs, used_names = [], set()
    for i, scen in enumerate(AGENTIC_SCENARIOS):
        c = new_conv("agentic", i + 1, rng, used_names, start_date(rng), style="plain")
        c.speakers = {"user": c.persona.first, "assistant": "Agent", "tool": "tools"}
        c.meta["scenario"] = scen.__name__.replace("_scenario", "")
        ag = Agentic(c)
        scen(ag)
        ag.flush()
        convs.append(c)
    return convs


PURPOSE = 'Tool-using agent runs: each session is one invocation with long tool observations (pod listings, logs, configs, JSON records, SQL tables, search results, test output). Probes are asked mid-invocation (about an earlier observation in the same run) and in later invocations, plus about unrelated side tasks, so working-memory compression and cross-invocation memory both matter.'
"""The card's purpose paragraph."""

build = suite_agentic
