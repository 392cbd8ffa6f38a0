"""The host lines above the tables of bench/compare-coll and bench/compare-fused:
the CPU, the yardsticks of bench/memcpy_bw.c, and the load average."""


def human(s):
    """A byte count as the tables print it: 8 B, 4 KiB, 16 MiB."""
    for div, suf in ((1 << 20, "MiB"), (1 << 10, "KiB")):
        if s >= div and s % div == 0:
            return f"{s // div} {suf}"
    return f"{s} B"


def host_lines(cpu_model, cpus, yardsticks):
    """yardsticks: what memcpy_bw printed (its "memcpy" and "rtt" lines)."""
    rows = {line.split(",")[0]: line.split(",") for line in yardsticks.splitlines() if "," in line}
    m = rows.get("memcpy")
    memcpy = f"{float(m[2]):.2f} GB/s ({human(int(m[1]))} copies on one core)" if m and len(m) == 4 else yardsticks
    lines = [f"host: {cpu_model or 'unknown CPU'}, {cpus} CPUs; memcpy bandwidth {memcpy}"]
    r = rows.get("rtt")
    if r and len(r) == 6:
        low, median, high = (float(x) for x in r[2:5])
        lines.append(f"cache-line round trip between two CPUs: {low:.0f}-{high:.0f} ns, median {median:.0f} "
                     f"({r[1]} samples over 2 s)")
        if high > 2.5 * low:
            lines.append("warning: the round trip changed during those 2 s: the host moves between faster and slower "
                         "CPU placements, and the collectives' times change with it; a median over a few runs may "
                         "compare implementations measured in different states (bench/README.md).")
    return lines


def load_lines(cpus, load_start, load_end):
    lines = [f"load average (1/5/15 min) at start: {load_start}; at end: {load_end}"]
    try:
        if float(load_start.split()[0]) > 0.5 * float(cpus):
            lines.append("warning: the machine was already busy at the start; other processes skew these numbers.")
    except ValueError:
        pass
    return lines
