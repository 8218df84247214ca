"""Writes `make bench-scale`'s report (Benchmarks/scale.md) from what bench-scale.sh measured:
the phases (wrk runs with the counters read around them), nginx's access log (route, status,
request time, instance: one line a request) and the day's mix."""
import argparse
import math
from collections import defaultdict

parser = argparse.ArgumentParser()
parser.add_argument("--phases", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--mix", required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--set", nargs="*", default=[])
parser.add_argument("--statements", default="")
parser.add_argument("--perf", default="")
parser.add_argument("--perf-tollgate", default="")
parser.add_argument("--perf-postgres", default="")
parser.add_argument("--postgres-conf", default="")
args = parser.parse_args()
value = dict(item.split("=", 1) for item in args.set)
mix = dict(line.strip().split("=", 1) for line in open(args.mix) if "=" in line)
log = [line.rstrip("\n").split("\t") for line in open(args.log)]
PEAK_FACTOR = 2.5  # the busiest hour of a day carries 2.5× the day's average rate
P99_LIMIT = 50.0
STACK_CPU_TARGET = 0.4  # ms of the whole stack's CPU a request, at saturation
FIXED_LABEL = "target {rate} req/s"


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(math.ceil(fraction * len(ordered))) - 1)]


class Phase:
    def __init__(self, line):
        fields = line.split()
        self.name = fields[0]
        self.connections, self.rate = int(fields[1]), int(fields[2])  # offered req/s, 0: as fast as answered
        start, end = int(fields[3]), int(fields[4])
        self.rows, self.pg, self.server, self.nginx, self.machine = (int(v) for v in fields[5:10])
        self.seconds = float(fields[10])
        # p99 as the load generator saw it (queueing in the proxy and the kernel included).
        self.client_p99 = float(fields[11]) if len(fields) > 11 else float("nan")
        # The load generator: its threads and the CPU seconds it used (user + system).
        self.threads = int(fields[12]) if len(fields) > 12 else 1
        self.wrk_cpu = float(fields[13]) if len(fields) > 13 else float("nan")
        self.lines = log[start:end]
        self.times = defaultdict(list)
        self.failed = defaultdict(int)
        self.limited = 0
        self.statuses = defaultdict(int)
        self.instances = defaultdict(int)
        for route, status, seconds, upstream in (line[:4] for line in self.lines if len(line) >= 4):
            if status == "499":
                continue  # the load generator closing its connections as a phase ends
            self.times[route].append(float(seconds) * 1000)
            if not status.startswith("2"):
                self.failed[route] += 1
                self.statuses[f"{route} {status}"] += 1
            if status == "429":
                self.limited += 1
            # A request nginx passed on to a second instance names both: the last one answered.
            self.instances[upstream.split(", ")[-1]] += 1
        every = [t for times in self.times.values() for t in times]
        self.rps = len(self.lines) / self.seconds
        self.p50, self.p99 = percentile(every, 0.5), percentile(every, 0.99)

    def share(self, ticks):
        return 100.0 * ticks / self.machine if self.machine else float("nan")

    @property
    def wrk_share(self):
        """The load generator's CPU as a share of one core per thread (100 %: it was the limit)."""
        return 100.0 * self.wrk_cpu / self.seconds / self.threads

    def labels(self):
        """The phase's name in the phase table, and in the per-route table's columns."""
        if self is phases[0]:
            return "fixed rate, " + FIXED_LABEL.format(rate=value["rate"]), "fixed rate"
        if self.name.startswith("r"):
            return f"offered {self.rate:,} req/s", f"{self.rate:,}/s"
        if self.name.startswith("s"):
            n = self.name.split("-")[1]
            return f"target {self.rate:,} req/s, replay {n}", f"{self.rate:,}/s #{n}"
        threads = self.threads > 1
        return ("as fast as answered" + (f", {self.threads} load threads" if threads else ""),
                "max" + (f" ×{self.threads}" if threads else ""))

phases = [Phase(line) for line in open(args.phases) if line.strip()]
fixed = phases[0]
paced = [phase for phase in phases if phase.rate > 0]
passing = [phase for phase in paced if phase.client_p99 <= P99_LIMIT]
best = max(passing, key=lambda phase: phase.rps) if passing else None
replays = [phase for phase in phases if phase.name.startswith("s")]
unpaced = [phase for phase in phases if phase.rate == 0]
saturated = max(unpaced, key=lambda phase: phase.rps) if unpaced else phases[-1]
one_thread = next((phase for phase in unpaced if phase.threads == 1), None)
two_threads = next((phase for phase in unpaced if phase.threads > 1), None)


def short(p):
    return p.labels()[1]


def spread(values):
    """min / median / max of three or so figures."""
    ordered = sorted(values)
    return ordered[0], ordered[len(ordered) // 2], ordered[-1]


def lines(path):
    try:
        return [line.rstrip("\n") for line in open(path) if line.strip()] if path else []
    except FileNotFoundError:
        return []

sample = int(mix["sample"])
day_requests = int(mix["requests"]) * sample  # per 1 000 000 daily users
day_impressions = int(mix.get("route.events", "0")) * sample
cores = int(value["cores"])
profiles = int(value["profiles"])
profile_bytes = int(value["profiles_bytes"]) / profiles
events_rows = int(value["events_rows"]) - int(value["events_before"])
event_bytes = int(value["events_bytes"]) / max(events_rows, 1)
mb = 1024 * 1024


def ms(v):
    return f"{v:.1f}" if v == v else "n/a"


out = []
w = out.append
w("## A day of a big app (`make bench-scale`)")
w("")
w(f"Generated by `make bench-scale` at commit {value['commit']} in {int(value['total_seconds']) // 60} min "
  f"{int(value['total_seconds']) % 60} s, on the same {cores}-core machine: PostgreSQL, four `tollgate serve` "
  f"instances, nginx in front (the documented settings: `X-Forwarded-For`, `--trusted-proxies`, default rate limits), "
  f"the Apple Ads stand-in, a webhook receiver and `wrk` all share its {cores} cores — read every rate as the "
  f"whole stack's on {cores} cores.")
w("")
w(f"- **Data**: {profiles:,} profiles loaded by `COPY` in {value['seed_seconds']} s ({value['seeded'].split(': ', 1)[-1]}); "
  f"profiles table with its indexes {int(value['profiles_bytes']) / mb:,.0f} MiB ({profile_bytes:.0f} bytes a profile); "
  f"database {int(value['database_bytes_seeded']) / mb:,.0f} MiB after the load, {int(value['database_bytes']) / mb:,.0f} MiB after the run.")
w(f"- **Instances**: `--profile-cache {int(value['cache']):,}` each (the most recently active profiles read at start: "
  f"{value['warm_seconds']} s for all four together); RSS now/peak per instance (MB):{value['rss']}.")
w(f"- **The day** (per 1 000 000 daily users; `tollgate-bench scale-day`): {int(mix['first_launches']) * sample:,} first "
  f"launches (half with an Apple Ads token), {int(mix['returning_launches']) * sample:,} returning launches, "
  f"{int(mix['purchases']) * sample:,} purchases, {int(mix['renewals']) * sample:,} renewals (App Store notifications): "
  f"{day_requests:,} requests, {day_requests / 86400:.0f} req/s on average, {PEAK_FACTOR * day_requests / 86400:.0f} req/s "
  f"in the busiest hour (×{PEAK_FACTOR}). Replayed: a 1/{sample} sample in the day's order.")
w(f"- **Configuration change** reaching the other three instances (`NOTIFY`, measured by reading each one's answer "
  f"every 2 ms): {value['staleness']}.")
w(f"- **Webhook deliveries** received by the local backend: {int(value['deliveries']):,}; server log lines (errors "
  f"and warnings) during the run: {value['instance_log_lines']}.")
conf = [line for line in lines(args.postgres_conf) if not line.lstrip().startswith("#")]
if conf:
    w(f"- **PostgreSQL settings** (`{args.postgres_conf}`, the ones docs/operations.md recommends, sized for this "
      f"machine's memory): " + "; ".join(f"`{line.strip()}`" for line in conf) + ".")
else:
    w("- **PostgreSQL settings**: the packaged defaults.")
w("")


def stack_cpu_ms(phase):
    """CPU milliseconds a request cost the whole stack (PostgreSQL, instances, nginx) in a phase."""
    if not phase.rps or not phase.machine:
        return float("nan")
    return (phase.pg + phase.server + phase.nginx) / phase.machine * cores / phase.rps * 1000


w("### Against the targets")
w("")
w("| target | measured | |")
w("|---|---|---|")
if replays:
    lo, mid, hi = spread([p.client_p99 for p in replays])
    rlo, rmid, rhi = spread([p.rps for p in replays])
    rate = replays[0].rate
    held = mid <= P99_LIMIT and rmid >= 0.97 * rate
    w(f"| p99 ≤ {P99_LIMIT:.0f} ms at {rate:,} req/s (the 10 M-daily-user peak), {len(replays)} replays | "
      f"p99 {ms(lo)} / {ms(mid)} / {ms(hi)} ms (min / median / max) at {rlo:,.0f} / {rmid:,.0f} / {rhi:,.0f} req/s | "
      f"{'met' if held else 'missed'} |")
stack = stack_cpu_ms(saturated)
w(f"| stack CPU a request ≤ {STACK_CPU_TARGET} ms, at saturation | {stack:.2f} ms at {saturated.rps:,.0f} req/s "
  f"(PostgreSQL {saturated.pg / max(saturated.machine, 1) * cores / max(saturated.rps, 1) * 1000:.2f} ms) | "
  f"{'met' if stack <= STACK_CPU_TARGET else f'missed by {stack / STACK_CPU_TARGET:.1f}×'} |")
if one_thread:
    verdict = "not the limit" if one_thread.wrk_share < 90 else "the limit"
    more = ""
    if two_threads:
        more = (f"; with two load threads {two_threads.rps:,.0f} req/s ({two_threads.rps / one_thread.rps:.2f}× one "
                f"thread's), each at {two_threads.wrk_share:.0f} % of a core")
    w(f"| the load generator is not the limit | as fast as answered, one thread: {one_thread.rps:,.0f} req/s with wrk "
      f"at {one_thread.wrk_share:.0f} % of its core{more} | {verdict} |")
w("")

w("| phase | fleet req/s | per instance req/s | p99 at the client | p50 / p99 at the proxy | non-2xx (429) | PostgreSQL rows written/s | CPU: PostgreSQL / instances / nginx | stack CPU a request | load generator CPU (a thread) |")
w("|---|---|---|---|---|---|---|---|---|---|")
for phase in phases:
    per = " / ".join(f"{count / phase.seconds:.0f}" for _, count in sorted(phase.instances.items()))
    failed = sum(phase.failed.values())
    w(f"| {phase.labels()[0]} | {phase.rps:,.0f} | {per} | {ms(phase.client_p99)} ms | {ms(phase.p50)} / {ms(phase.p99)} ms | "
      f"{failed} ({phase.limited}) | {phase.rows / phase.seconds:,.0f} | {phase.share(phase.pg):.0f} % / "
      f"{phase.share(phase.server):.0f} % / {phase.share(phase.nginx):.0f} % | {stack_cpu_ms(phase):.2f} ms | "
      f"{phase.wrk_share:.0f} % |")
w("")
for phase in phases:
    if phase.statuses:
        listed = ", ".join(f"{key}: {count}" for key, count in sorted(phase.statuses.items()))
        w(f"Non-2xx answers, {short(phase)}: {listed}.")
w("")
if best:
    w(f"**Highest rate with p99 ≤ {P99_LIMIT:.0f} ms (at the client): {best.rps:,.0f} req/s for the fleet** "
      f"(p99 {ms(best.client_p99)} ms), {best.rps / 4:,.0f} per instance; as fast as answered: "
      f"{saturated.rps:,.0f} req/s at p99 {ms(saturated.client_p99)} ms.")
else:
    w(f"**No step kept p99 ≤ {P99_LIMIT:.0f} ms.**")
w("")
w("Per route, p50 / p99 as nginx timed them (request in to response out), in each phase:")
w("")
w("| route | requests (fixed rate) | " + " | ".join(short(p) for p in phases) + " |")
w("|---|---|" + "---|" * len(phases))
for route in sorted({r for p in phases for r in p.times}):
    cells = []
    for p in phases:
        times = p.times.get(route, [])
        cells.append(f"{ms(percentile(times, 0.5))} / {ms(percentile(times, 0.99))} ms" if times else "–")
    w(f"| {route} | {len(fixed.times.get(route, [])):,} | " + " | ".join(cells) + " |")
w("")
w(f"Events: {events_rows:,} impressions written during the run take {int(value['events_bytes']) / mb:,.1f} MiB with "
  f"their indexes and the de-duplication table: **{event_bytes * 1e6 / mb:,.0f} MiB per million impressions** "
  f"({event_bytes:.0f} bytes each).")
w("")
w("### Where the time goes")
w("")
profile = lines(args.perf)
if profile:
    w("`perf record -a -g` over the second replay at the target (every process on the machine; share of the samples, "
      "by process and library, over 1.5 %):")
    w("")
    w("```text")
    w("\n".join(line.strip() for line in profile))
    w("```")
    w("")
    for title, path in (("the instances (`tollgate`)", args.perf_tollgate), ("PostgreSQL", args.perf_postgres)):
        symbols = lines(path)
        if symbols:
            w(f"Hottest functions in {title}, share of all samples:")
            w("")
            w("```text")
            w("\n".join(line.strip() for line in symbols))
            w("```")
            w("")
else:
    w("(`perf` was not available: no profile.)")
    w("")
statements = [line.split("\t") for line in lines(args.statements)]
if statements:
    w("PostgreSQL's statements by total execution time over every phase (`pg_stat_statements`):")
    w("")
    w("| total ms | calls | mean ms | share | statement |")
    w("|---|---|---|---|---|")
    for total, calls, mean, share, query in (row[:5] for row in statements if len(row) >= 5):
        query = query.replace("|", "\\|")
        w(f"| {int(float(total)):,} | {int(calls):,} | {mean} | {share} % | `{query}` |")
    w("")
else:
    w("(pg_stat_statements was not loaded: no statement times.)")
    w("")
if saturated.rps > 0 and saturated.machine:
    # CPU seconds a request costs the whole stack, and PostgreSQL alone, at saturation (the
    # shares are of all cores together).
    stack_cpu = (saturated.pg + saturated.server + saturated.nginx) / saturated.machine * cores / saturated.rps
    pg_cpu = saturated.pg / saturated.machine * cores / saturated.rps
    # The share of the cores the stack used in the fastest phase that kept p99 in bounds: size for it.
    headroom = ((best.pg + best.server + best.nginx) / best.machine) if best and best.machine else 0.3
    w("### Extrapolation")
    w("")
    w(f"At saturation ({saturated.rps:,.0f} req/s) a request cost the stack {stack_cpu * 1000:.2f} ms of CPU "
      f"(PostgreSQL {pg_cpu * 1000:.2f} ms of it, the rest the instances and nginx). p99 stayed within "
      f"{P99_LIMIT:.0f} ms while the stack used {100 * headroom:.0f} % of the cores, so the table sizes for that "
      f"utilisation. Peak = the day's requests ({day_requests:,} per million daily users) ÷ 86 400 × "
      f"{PEAK_FACTOR}; cores = peak × {stack_cpu * 1000:.2f} ms ÷ {headroom:.2f}; PostgreSQL's share of them = "
      f"peak × {pg_cpu * 1000:.2f} ms ÷ {headroom:.2f}; app instances = the other cores ÷ 2 (2-core instances), at "
      f"least 2; database = profiles × {profile_bytes:.0f} B (10 profiles a daily user, as seeded) + "
      f"{day_impressions:,} impressions a day per million users × 400 days' retention × {event_bytes:.0f} B "
      f"(transactions, rollups and assignments left out: under 5 % of the seeded database). Loopback hides "
      f"network latency and this machine's one disk is shared by everything: read the order of magnitude.")
    w("")
    w("| daily users | peak req/s | cores (whole stack) | PostgreSQL cores | app instances (2 cores) | profiles | database |")
    w("|---|---|---|---|---|---|---|")
    for users in (1_000_000, 10_000_000, 50_000_000):
        scale = users / 1_000_000
        peak = PEAK_FACTOR * day_requests * scale / 86400
        total = peak * stack_cpu / headroom
        pg_cores = peak * pg_cpu / headroom
        instances = max(2, math.ceil((total - pg_cores) / 2))
        users_profiles = 10 * users
        size = users_profiles * profile_bytes + day_impressions * scale * 400 * event_bytes
        w(f"| {users:,} | {peak:,.0f} | {total:.1f} | {pg_cores:.1f} | {instances} | {users_profiles:,} | "
          f"{size / 1024 ** 3:,.0f} GiB ({users_profiles:,} × {profile_bytes:.0f} B + "
          f"{day_impressions * scale * 400:,.0f} × {event_bytes:.0f} B) |")
    w("")
open(args.out, "w").write("\n".join(out) + "\n")
