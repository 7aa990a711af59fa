"""Tool-heavy tasks for the thread suites: an agent works through entities one tool call at a time.

A task is a user request followed by tool calls (the assistant's ``Calling ...`` turn and the
tool's observation, a multi-line output holding several values per entity), so a long task puts
many observations into one invocation: what working-memory compression can lose. Each domain
(fleet audit, table migration, invoice reconciliation, flat hunting, dependency upgrade) draws
its entities and values from the suite's RNG; :func:`run_task` writes the turns and returns where
each value was observed, so probes can cite the observation that holds their answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from suitegen.conv import Conv
from suitegen.core import Rng, date_gold
from suitegen.vocab import FEMALE, MALE, SURNAMES


def hexid(rng: Rng, n: int) -> str:
    return "".join(rng.pick("0123456789abcdef") for _ in range(n))


def alnum(rng: Rng, n: int, alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") -> str:
    return "".join(rng.pick(alphabet) for _ in range(n))


@dataclass
class Observed:
    """One entity's observation: the tool turn holding it and the values it showed."""

    entity: str
    tid: str
    values: dict[str, Any]


@dataclass
class Domain:
    """How a task of one kind is phrased and what its observations hold."""

    name: str
    request: Callable[[list[str], Rng], str]
    """The user's request naming the entities."""
    entities: Callable[[Rng, int], list[str]]
    call: Callable[[str], str]
    """The assistant's turn that calls the tool for one entity."""
    tool: str
    observe: Callable[[str, Rng, set], tuple[str, dict[str, Any]]]
    """(observation text, {attribute: value}) for one entity; names are drawn fresh against the
    conversation's used values, so a tool output never repeats an answer of another probe."""
    questions: dict[str, str]
    """Attribute → question template ({entity}); the answer is the observed value."""
    report: Callable[[list[Observed]], str]
    """The assistant's closing summary (it names no asked value)."""
    gold: Callable[[str, Any], dict[str, Any]] = field(default=lambda attr, v: {"text": str(v)})


def _kernel(rng: Rng) -> str:
    return f"5.{rng.randint(4, 19)}.{rng.randint(0, 199)}"


def _fleet_entities(rng: Rng, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        h = f"{rng.pick(['edge', 'core', 'db', 'cache', 'api', 'batch'])}-{rng.pick(['fra', 'ams', 'iad', 'sin', 'gru', 'syd'])}-{rng.randint(1, 40):02d}"
        if h not in out:
            out.append(h)
    return out


def _fleet_observe(host: str, rng: Rng, used: set) -> tuple[str, dict[str, Any]]:
    kernel = _kernel(rng)
    day = date(2024, 1, 1) + timedelta(days=rng.randint(20, 700))
    disk = rng.randint(12, 93)
    rows = ["$ uname -r", kernel, "$ openssl x509 -enddate -noout -in /etc/ssl/host.pem",
            f"notAfter={day.strftime('%b')} {day.day} 12:00:00 {day.year} GMT", "$ df -h /",
            "Filesystem      Size  Used Avail Use% Mounted on",
            f"/dev/sda1       {rng.pick([80, 120, 200])}G   {rng.randint(10, 70)}G  {rng.randint(10, 90)}G  {disk}% /",
            "$ uptime", f" {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 up {rng.randint(2, 400)} days, "
            f"load average: {rng.randint(0, 3)}.{rng.randint(0, 99):02d}, {rng.randint(0, 3)}.{rng.randint(0, 99):02d}"]
    rows += [f"# motd: {rng.pick(['maintenance window Sundays 02:00 UTC', 'managed by config v3', 'do not reboot without a ticket', 'owner: platform team'])}"
             for _ in range(3)]
    return "\n".join(rows), {"kernel": kernel, "expiry": day, "disk": f"{disk}%"}


def _tables_entities(rng: Rng, n: int) -> list[str]:
    names = ["orders", "order_items", "customers", "invoices", "payments", "refunds", "shipments", "carriers", "products",
             "price_history", "inventory", "warehouses", "returns", "coupons", "subscriptions", "sessions", "events",
             "audit_log", "suppliers", "purchase_orders", "tax_rates", "regions", "employees", "timesheets"]
    return rng.sample(names, n)


def _tables_observe(table: str, rng: Rng, used: set) -> tuple[str, dict[str, Any]]:
    rows_n = rng.randint(10_000, 48_000_000)
    checksum = hexid(rng, 8)
    minutes = rng.randint(2, 95)
    text = "\n".join([
        f"COPY public.{table} -> warehouse.{table}",
        f"rows copied: {rows_n:,}", f"source checksum: {checksum}", f"target checksum: {checksum}",
        f"duration: {minutes} min", f"indexes rebuilt: {rng.randint(1, 7)}",
        f"vacuum: {rng.pick(['skipped', 'done', 'done'])}", f"warnings: {rng.randint(0, 3)}",
        f"batch id: mig-{hexid(rng, 6)}"])
    return text, {"rows": f"{rows_n:,}", "checksum": checksum, "duration": f"{minutes} min"}


VENDORS = ["Acme Office Supply", "Brightline Couriers", "Cobalt Cloud", "Delta Catering", "Evergreen Cleaning", "Fjord Print",
           "Granite Legal", "Harbor Freight Co", "Iris Design Studio", "Juniper Telecom", "Kestrel Security", "Lumen Energy",
           "Meridian Travel", "Nimbus Software", "Orchard Fruit Boxes", "Pioneer Plumbing", "Quartz Accounting",
           "Redwood Furniture", "Summit Staffing", "Tidal Water Co"]


def _invoice_entities(rng: Rng, n: int) -> list[str]:
    return [f"INV-{rng.randint(10000, 99999)}" for _ in range(n)]


def _invoice_observe(inv: str, rng: Rng, used: set) -> tuple[str, dict[str, Any]]:
    vendor = rng.pick(VENDORS)
    amount = f"{rng.randint(120, 9800)}.{rng.randint(0, 99):02d}"
    due = date(2024, rng.randint(1, 12), rng.randint(1, 28))
    po = f"PO-{rng.randint(1000, 9999)}"
    text = "\n".join([
        f"invoice: {inv}", f"vendor: {vendor}", f"amount: EUR {amount}", f"due: {due.isoformat()}", f"purchase order: {po}",
        f"status: {rng.pick(['open', 'open', 'disputed', 'scheduled'])}", f"approver: {rng.pick(SURNAMES)}",
        f"cost centre: CC-{rng.randint(100, 999)}", f"notes: {rng.pick(['net 30', 'net 45', 'early payment discount 2%', 'none'])}"])
    return text, {"vendor": vendor, "amount": amount, "po": po, "due": due}


STREETS = ["Rua das Flores", "Canal Street", "Linden Avenue", "Harbour Road", "Mill Lane", "Station Square", "Orchard Row",
           "Kingsway", "Baker's Yard", "Quay Street", "Elm Terrace", "Market Place"]


def _flat_entities(rng: Rng, n: int) -> list[str]:
    return [f"listing {rng.randint(100000, 999999)}" for _ in range(n)]


def _flat_observe(listing: str, rng: Rng, used: set) -> tuple[str, dict[str, Any]]:
    street = f"{rng.randint(2, 180)} {rng.pick(STREETS)}"
    rent = rng.randint(8, 32) * 50
    size = rng.randint(38, 120)
    agent = f"{rng.fresh(FEMALE + MALE, used)} {rng.pick(SURNAMES)}"
    text = "\n".join([
        f"{listing}", f"address: {street}", f"rent: {rent} per month", f"size: {size} m2", f"rooms: {rng.randint(1, 4)}",
        f"floor: {rng.randint(0, 9)}", f"available from: {date(2024, rng.randint(1, 12), 1).isoformat()}",
        f"letting agent: {agent}", f"pets: {rng.pick(['allowed', 'not allowed', 'on request'])}",
        f"energy rating: {rng.pick('ABCDE')}"])
    return text, {"address": street, "rent": str(rent), "agent": agent}


PACKAGES = ["requests", "numpy", "pandas", "django", "flask", "sqlalchemy", "pydantic", "celery", "redis", "boto3", "pytest",
            "jinja2", "click", "httpx", "uvicorn", "fastapi", "lxml", "pillow", "cryptography", "pyyaml"]


def _pkg_entities(rng: Rng, n: int) -> list[str]:
    return rng.sample(PACKAGES, n)


def _pkg_observe(pkg: str, rng: Rng, used: set) -> tuple[str, dict[str, Any]]:
    cur = f"{rng.randint(0, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"
    new = f"{int(cur.split('.')[0]) + rng.randint(0, 2)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"
    cve = f"CVE-{rng.randint(2021, 2024)}-{rng.randint(1000, 49999)}"
    text = "\n".join([
        f"$ pip index versions {pkg}", f"installed: {cur}", f"latest: {new}",
        f"$ pip-audit --package {pkg}", f"found 1 known vulnerability: {cve} (fixed in {new})",
        f"license: {rng.pick(['MIT', 'BSD-3-Clause', 'Apache-2.0', 'PSF'])}",
        f"dependents in repo: {rng.randint(1, 40)} modules", f"last release: {rng.randint(2, 90)} days ago"])
    return text, {"installed": cur, "cve": cve}


DOMAINS: dict[str, Domain] = {
    "fleet": Domain(
        "fleet",
        request=lambda es, rng: (f"Audit these {len(es)} hosts one by one: kernel version, TLS certificate expiry and disk "
                                 f"usage. Report at the end. Hosts: {', '.join(es)}."),
        entities=_fleet_entities,
        call=lambda e: f"Calling `ssh {e} 'uname -r; openssl x509 -enddate -noout -in /etc/ssl/host.pem; df -h /; uptime'`.",
        tool="ssh", observe=_fleet_observe,
        questions={"kernel": "Which kernel version did {entity} report?",
                   "expiry": "When does the TLS certificate on {entity} expire?"},
        report=lambda obs: f"Audit done: {len(obs)} hosts checked. Details are in the outputs above.",
        gold=lambda attr, v: date_gold(v) if attr == "expiry" else {"text": str(v)}),
    "tables": Domain(
        "tables",
        request=lambda es, rng: (f"Migrate these {len(es)} tables to the warehouse, one at a time, and verify each "
                                 f"checksum: {', '.join(es)}."),
        entities=_tables_entities,
        call=lambda e: f"Calling `migrate_table --source public.{e} --target warehouse.{e} --verify`.",
        tool="migrator", observe=_tables_observe,
        questions={"rows": "How many rows were copied for the {entity} table?",
                   "checksum": "What checksum did the {entity} migration report?"},
        report=lambda obs: f"All {len(obs)} tables migrated; every checksum matched."),
    "invoices": Domain(
        "invoices",
        request=lambda es, rng: (f"Reconcile these {len(es)} open invoices against the purchase orders and tell me which "
                                 f"look off: {', '.join(es)}."),
        entities=_invoice_entities,
        call=lambda e: f"Calling `erp.get_invoice(\"{e}\")`.",
        tool="erp", observe=_invoice_observe,
        questions={"vendor": "Which vendor issued invoice {entity}?",
                   "po": "Which purchase order is invoice {entity} booked against?"},
        report=lambda obs: f"Reconciled {len(obs)} invoices; nothing blocks payment."),
    "flats": Domain(
        "flats",
        request=lambda es, rng: (f"Go through these {len(es)} flat listings and pull the details for each: "
                                 f"{', '.join(es)}."),
        entities=_flat_entities,
        call=lambda e: f"Calling `listings.get(\"{e.split()[-1]}\")`.",
        tool="listings", observe=_flat_observe,
        questions={"address": "What is the address of {entity}?", "agent": "Who is the letting agent for {entity}?"},
        report=lambda obs: f"Pulled all {len(obs)} listings; I can shortlist them whenever you like."),
    "packages": Domain(
        "packages",
        request=lambda es, rng: (f"Check these {len(es)} dependencies for known vulnerabilities and the version we'd "
                                 f"upgrade to: {', '.join(es)}."),
        entities=_pkg_entities,
        call=lambda e: f"Calling `pip index versions {e} && pip-audit --package {e}`.",
        tool="shell", observe=_pkg_observe,
        questions={"installed": "Which version of {entity} is installed?",
                   "cve": "Which CVE did the audit report for {entity}?"},
        report=lambda obs: f"Checked {len(obs)} packages; each has a fixed release available."),
}


@dataclass
class TaskRun:
    """What a task wrote: the user's request turn and each entity's observation, in order."""

    domain: Domain
    request_tid: str
    observed: list[Observed]
    interjections: list[str] = field(default_factory=list)

    def question(self, k: int, attr: str) -> tuple[str, dict[str, Any], list[str]]:
        """(question, gold, evidence) for attribute ``attr`` of the k-th entity."""
        o = self.observed[k]
        gold = self.domain.gold(attr, o.values[attr])
        return self.domain.questions[attr].format(entity=o.entity), gold, [o.tid]


def run_task(conv: Conv, domain: Domain, n_entities: int, *, interject: dict[int, Callable[[Conv], None]] | None = None,
             after_step: dict[int, Callable[[TaskRun], None]] | None = None) -> TaskRun:
    """Write one task invocation into the current session: the request, then per entity the call
    and the observation. ``interject[k]`` runs after the k-th observation (the user says something
    mid-task: a new user turn); ``after_step[k]`` is called with the run so far (to ask a probe there)."""
    rng = conv.rng
    entities = domain.entities(rng, n_entities)
    run = TaskRun(domain, conv.u(domain.request(entities, rng), raw=True), [])
    seen: dict[str, set] = {}
    for k, e in enumerate(entities):
        conv.a(domain.call(e))
        for _ in range(20):  # every asked value distinct within the task (one right answer per question)
            text, values = domain.observe(e, rng, conv.used)
            if not any(str(values[a]) in seen.get(a, ()) for a in domain.questions):
                break
        for a in domain.questions:
            seen.setdefault(a, set()).add(str(values[a]))
        run.observed.append(Observed(e, conv.tool(domain.tool, text), values))
        if interject and k in interject:
            interject[k](conv)
            run.interjections.append(conv.last())
        if after_step and k in after_step:
            after_step[k](run)
    conv.a(domain.report(run.observed))
    return run
