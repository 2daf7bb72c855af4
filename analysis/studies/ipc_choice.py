"""The IPC report's "which to choose": this run's speeds beside what each mechanism does when a
peer fails and how far it extends, the two things the classic study weighed against speed (it
kept the Unix socket although it was the slowest).

The speed side is computed from the run; the other columns are properties of the interfaces
(POSIX and Linux man pages: unix(7), pipe(7), fifo(7), msgop(2), mq_overview(7), shm_overview(7)).
"""
from __future__ import annotations


SIZES = (71, 512)
KERNEL = ("unix-stream", "unix-dgram", "fifo", "pipe", "sysv-mq", "posix-mq")

# mechanism: (a peer dies, message boundaries, who talks, beyond this host / growth, after a crash)
PROPERTIES = {
    "unix-stream": ("reader sees end of stream; writer gets EPIPE", "no: a byte stream, framing is yours",
                    "both directions; many clients through accept()",
                    "TCP by changing the address family; passes descriptors and credentials; poll/epoll",
                    "a socket file (harmless)"),
    "unix-dgram": ("sender gets ECONNREFUSED; the receiver is not told", "yes",
                   "many senders to one receiver; replies need a bound sender",
                   "UDP-like code; passes descriptors; poll/epoll", "a socket file (harmless)"),
    "fifo": ("reader sees end of stream; writer gets EPIPE", "no; writes ≤ 4096 B (PIPE_BUF) stay whole",
             "one direction; many writers interleave", "this host only; poll/epoll", "the FIFO file (harmless)"),
    "pipe": ("reader sees end of stream; writer gets EPIPE", "no (as FIFO)",
             "one direction, between related processes only", "this host only; poll/epoll", "nothing"),
    "sysv-mq": ("not at all: the other side waits or the queue fills", "yes, typed (receive by type)",
                "many to many", "this host only; no descriptor, so no poll", "the queue, until removed or reboot"),
    "posix-mq": ("not at all (as System V)", "yes, with priorities", "many to many",
                 "this host only; a descriptor on Linux (poll), mq_notify", "the queue, until removed or reboot"),
    "shm-ring": ("not at all: only what the ring's code checks (here: deadlines)", "only what you build",
                 "one writer, one reader as written", "this host only; waiting, framing, errors are your code",
                 "the segment, until removed or reboot"),
}


def figures(med, mechanisms: list[str]) -> dict:
    """The speeds the section quotes: messages/s per mechanism and size, and ratios of real time."""
    out: dict = {"rates": {}, "socket_vs_fastest_kernel": {}, "ring_vs_socket": {}, "fastest_kernel": {}}
    for s in SIZES:
        rates = {m: med(m, s, "messages_per_s") for m in mechanisms if med(m, s, "messages_per_s") is not None}
        out["rates"][str(s)] = rates
        kernel = {m: r for m, r in rates.items() if m in KERNEL}
        if kernel:
            best = max(kernel, key=kernel.get)
            out["fastest_kernel"][str(s)] = best
            if "unix-stream" in kernel:
                out["socket_vs_fastest_kernel"][str(s)] = kernel[best] / kernel["unix-stream"]
        if "shm-ring" in rates and "unix-stream" in rates:
            out["ring_vs_socket"][str(s)] = rates["shm-ring"] / rates["unix-stream"]
    return out


def advice(c: dict, labels: dict[str, str]) -> list[str]:
    """Paragraphs of plain text, with this run's numbers."""
    rates = c["rates"]
    if not any("unix-stream" in rates.get(str(s), {}) for s in SIZES):
        return ["No Unix stream socket run at 71 or 512 B: nothing to weigh here."]
    def at(s: int) -> str:
        mine, best = rates[str(s)]["unix-stream"], c["fastest_kernel"][str(s)]
        if best == "unix-stream":
            return f"{mine:,.0f} messages/s at {s} B, the fastest kernel mechanism there"
        return f"{mine:,.0f} messages/s at {s} B, where the {labels[best]} moved ×{c['socket_vs_fastest_kernel'][str(s)]:.2f} as many"
    speed = "; ".join(at(s) for s in SIZES if "unix-stream" in rates.get(str(s), {}))
    out = [f"The Unix stream socket moved {speed}. If that rate covers the traffic you expect, as it did for "
           "the classic study, the socket is the better choice: a dead peer is an error (end of stream, EPIPE), "
           "not a hang; it talks both ways, serves many clients through accept(), passes descriptors and "
           "credentials, and becomes TCP across machines by changing the address family."]
    fast = {c["fastest_kernel"][str(s)] for s in SIZES if str(s) in c["fastest_kernel"]}
    out.append(f"Where the rate matters more and both ends stay on one host, the fastest kernel channel here was "
               f"{' / '.join(labels[m] for m in sorted(fast))}. FIFOs and pipes still report a dead peer; "
               "message queues keep message boundaries but do not notice a dead peer, cap a message "
               "(System V: kernel.msgmax, POSIX: fs.mqueue.msgsize_max; 8 KiB by default) and outlive a crashed "
               "process — this study needs a cleanup pass of its own for exactly that.")
    ring = c["ring_vs_socket"]
    if ring:
        out.append("The shared-memory ring is the bound: " + ", ".join(f"×{v:.1f} the socket's rate at {s} B"
                   for s, v in ring.items()) + ". It buys that by leaving synchronization, framing and failure "
                   "detection to its own code; worth it only where the kernel channels are measurably too slow.")
    return out


def view(summary: dict, labels: dict[str, str]) -> dict:
    """The section's paragraphs and table rows: (mechanism, messages/s at each of SIZES, its
    PROPERTIES)."""
    c = summary["choice"]
    return {"advice": advice(c, labels),
            "headers": ["mechanism", *(f"messages/s at {s} B" for s in SIZES), "a peer dies", "message boundaries",
                        "who talks", "beyond this host, growth", "after a crash"],
            "rows": [(labels.get(m, m), [c["rates"].get(str(s), {}).get(m) for s in SIZES], PROPERTIES.get(m, ("",) * 5))
                     for m in summary["mechanisms"]]}
