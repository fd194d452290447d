"""Plain reference scorers for tests: written the obvious way and sharing no
code with ``companion.scoring``, so the fast scorer is checked against an
independent oracle."""


def reference_peg_points(count) -> int:
    """Return the points of the last card of ``count`` (15/31, pairs, the longest run), counted naively."""
    total = sum(c.value for c in count)
    pts = 2 if total in (15, 31) else 0
    same = 1
    while same < len(count) and count[-1 - same].rank == count[-1].rank:
        same += 1
    pts += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for n in range(len(count), 2, -1):
        ranks = sorted(c.rank for c in count[-n:])
        if ranks == list(range(ranks[0], ranks[0] + n)):
            return pts + n
    return pts
