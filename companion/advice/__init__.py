"""The advice wing: what to throw, lead and play, and the review of a hand, by the rules it advises on.

It reads the rules (:mod:`companion.scoring`, :mod:`companion.rulesets`, the
matching phase of :mod:`companion.deal.pegging`) and nothing in the rules reads it.

* :mod:`.discard` — every discard ranked exactly by the game's goal (``landsend advise``)
* :mod:`.pegging` — two-hand pegging advice, exact (``landsend lead``, ``landsend peg-advice``)
* :mod:`.pegging_multi` — three- and four-hand pegging advice, exact late in a hand, else sampled
* :mod:`.review` — the review of the hand just shown, and live advice from a snapshot
* :mod:`.positions` — seat positions and sides counted from the dealer
* :mod:`.discard_cli`, :mod:`.pegging_cli` — their console commands
"""
