"""Who pays whom: the payments that settle a night's balances in the fewest payments, exactly. Pure: it reads
nothing of the table, the store or the season, only the balances it is given.

>>> settle_up({"Ann": Fraction(7), "Bob": Fraction(-3), "Cy": Fraction(-4), "Dee": Fraction(2), "Eve": Fraction(-2)})
[('Cy', 'Ann', Fraction(4, 1)), ('Bob', 'Ann', Fraction(3, 1)), ('Eve', 'Dee', Fraction(2, 1))]

Five people owed or owing settle in three payments, not four: Eve and Dee make a group of their own that sums to
zero.
"""

from __future__ import annotations

from fractions import Fraction

EXACT_UP_TO = 16          # settle-up is exact (subset DP) for up to this many players owed or owing


def settle_up(balances: dict[str, Fraction]) -> list[tuple[str, str, Fraction]]:
    """Return the payments ``(payer, payee, amount)`` that settle ``balances`` (won +, lost -; they sum
    to 0) in the fewest payments.

    The fewest is the number of people owed or owing less the most groups they
    split into that each sum to zero (each group of k settles in k - 1
    payments, and no fewer can settle it): found exactly over the subsets for
    up to :data:`EXACT_UP_TO` people. Within a group the largest debt pays the
    largest credit first. Ties are broken by name, so the answer is the same
    every time.

    >>> settle_up({"Ann": Fraction(5), "Bob": Fraction(-2), "Cy": Fraction(-3)})
    [('Cy', 'Ann', Fraction(3, 1)), ('Bob', 'Ann', Fraction(2, 1))]

    :raises ValueError: the balances do not sum to zero.
    """
    vals = {p: Fraction(v) for p, v in balances.items() if Fraction(v) != 0}
    if sum(vals.values(), Fraction(0)) != 0:
        raise ValueError(f"the balances do not sum to zero: {sum(vals.values(), Fraction(0))}")
    people = sorted(vals, key=lambda p: (vals[p], p))
    groups = _zero_groups(people, vals) if len(people) <= EXACT_UP_TO else [people]
    payments = []
    for group in groups:
        left = {p: vals[p] for p in group}
        while any(left.values()):
            payer = min(left, key=lambda p: (left[p], p))
            payee = max(left, key=lambda p: (left[p], [-ord(c) for c in p]))
            amount = min(-left[payer], left[payee])
            payments.append((payer, payee, amount))
            left[payer] += amount
            left[payee] -= amount
    return payments


def _zero_groups(people: list[str], vals: dict[str, Fraction]) -> list[list[str]]:
    """Return ``people`` split into the most groups that each sum to zero (a DP over the subsets)."""
    n = len(people)
    full = (1 << n) - 1
    total = [Fraction(0)] * (1 << n)
    for mask in range(1, 1 << n):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + vals[people[low]]
    best = [0] * (1 << n)            # the most zero-sum groups the people of mask split into
    came = [0] * (1 << n)            # the person whose removal gave it
    for mask in range(1, 1 << n):
        b, c = -1, 0
        for i in range(n):
            if mask >> i & 1 and best[mask ^ (1 << i)] > b:
                b, c = best[mask ^ (1 << i)], i
        best[mask] = b + (1 if total[mask] == 0 else 0)
        came[mask] = c
    # walk back: a group closes each time the people left sum to zero again
    groups, current, mask = [], [], full
    while mask:
        i = came[mask]
        current.append(people[i])
        mask ^= 1 << i
        if total[mask] == 0:
            groups.append(sorted(current))
            current = []
    return groups
