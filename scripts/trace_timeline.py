#!/usr/bin/env python3
"""Draw the processes of one traced scan on a time line: which process does what, when, and
where a core waits (the critical path of a scan with helper processes).

    TXSCAN_HELPERS=1 TXSCAN_TRACE_FILE=/tmp/trace.txt .venv/bin/txscan scan APP --no-cache --no-db --format json >/dev/null
    .venv/bin/python scripts/trace_timeline.py /tmp/trace.txt [--step 0.005]

The trace (analyzer/timing.py) holds a line `pid start end name` per phase and per moment of
every process of the scan. Processes are numbered in the order they first appear (p0: the scan);
times are seconds from the first line. Each process gets a list of its phases and moments and a
row of cells of `--step` seconds, each showing the first letter of the phase that covers most of
it (upper case: more than half), `.` where no phase of that process is traced: where it waits,
or does work no phase counts (reading the files; the process ahead's whole index). A measuring
aid, not a test: never assert on its figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def read(path: Path) -> list[tuple[str, float, float, str]]:
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        pid, start, end, name = line.split(" ", 3)
        events.append((pid, float(start), float(end), name))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", type=Path)
    parser.add_argument("--step", type=float, default=0.005, help="seconds per cell of the rows (default 0.005)")
    args = parser.parse_args()
    events = read(args.trace)
    if not events:
        return
    origin = min(start for _pid, start, _end, _name in events)
    finish = max(end for _pid, _start, end, _name in events)
    processes: list[str] = []
    for pid, *_rest in events:
        if pid not in processes:
            processes.append(pid)
    cells = int((finish - origin) / args.step) + 1
    for number, pid in enumerate(processes):
        own = sorted((e for e in events if e[0] == pid), key=lambda e: (e[1], e[2]))
        print(f"p{number} (pid {pid})")
        for _pid, start, end, name in own:
            span = f"{start - origin:7.3f} {end - origin:7.3f}" if end > start else f"{start - origin:7.3f}        "
            print(f"  {span}  {name}")
        row = []
        for cell in range(cells):
            low, high = origin + cell * args.step, origin + (cell + 1) * args.step
            covered = {}
            for _pid, start, end, name in own:
                overlap = min(end, high) - max(start, low)
                if overlap > 0:
                    covered[name] = covered.get(name, 0.0) + overlap
            if not covered:
                row.append(".")
                continue
            name, overlap = max(covered.items(), key=lambda item: item[1])
            letter = name[0]
            row.append(letter.upper() if overlap > args.step / 2 else letter.lower())
        print("  |" + "".join(row) + "|")
    print(f"{len(processes)} processes, {finish - origin:.3f} s from the first line to the last; "
          f"one cell = {args.step:g} s")


if __name__ == "__main__":
    main()
