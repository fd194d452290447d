"""Card entry: the hand state machine (turn-up, plays, go, shows, pocket, grid).

Registers its command handlers in :data:`companion.match.HANDLERS` and its hand
state factories in :data:`companion.match.HAND_FACTORIES`.
"""
