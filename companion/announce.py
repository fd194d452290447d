"""What the table says aloud after an event: the words the page shows and the board speaks.

The rule sheets ask every player to announce the count and what it scores
("fifteen for two", "thirty-one for two"). After each accepted event the
table builds one announcement from the score steps that event produced, in
the order they were scored, and who said go. The page shows it, its live
region reads it to a screen reader, and the board's voice speaks it: the
same words everywhere, built here once.

>>> sides = [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Bob"}]
>>> said({"type": "play", "seq": 4}, [{"kind": "play", "text": "fifteen for two", "points": 2,
...       "player": "Bob", "side": "p1"}], sides)["speech"]
'fifteen for two. Bob played: 2 to Ann'
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

#: How ``who`` begins for a step of each kind made by a named player.
_BY = {"go": "{}'s go: ", "last": "{}'s last card: ", "play": "{} played: "}


def _who(step: Mapping[str, Any], names: Mapping[str, str]) -> str:
    side = names.get(step.get("side"), step.get("side") or "")
    if step.get("kind") == "amend":     # the scores an amend moved: "Ann 5 (was 12)"
        return f"{side} {step['score']} (was {step['was']})" if step.get("side") else ""
    player = step.get("player") or ""
    who = player if player and player != side else ""
    by = _BY.get(step.get("kind"), "{}: ").format(who) if who else ""
    return f"{by}+{step['points']} to {side}" if step.get("points") else ""


def said(event: Mapping[str, Any] | None, steps: Iterable[Mapping[str, Any]],
         sides: Iterable[Mapping[str, Any]]) -> dict | None:
    """Return the announcement of ``event``, or None when it says nothing (a turn-up without heels, a new game).

    :param event: the stored event (its ``type``, ``seq``, ``player`` and ``gos`` are read).
    :param steps: the score steps that event produced, in scoring order (``Table.history()[i]["steps"]``).
    :param sides: the snapshot's sides (for their names).
    :returns: ``{"seq", "lines": [{"text", "who"}], "text", "who", "speech"}``: ``text`` is what the
        page shows in large print (the lines' words joined by commas), ``who`` the small print
        (who scored, who is credited), ``speech`` what is spoken (``text``, then ``who``
        without its "+" signs).
    """
    if not event or event.get("type") == "undo":
        return None
    names = {s.get("id"): s.get("name") or s.get("id") for s in sides}
    steps = list(steps)
    if event.get("type") == "amend":     # one line: what changed, and the scores it moved
        lines = [{"text": event.get("text") or "amended",
                  "who": " \u00b7 ".join(w for w in (_who(st, names) for st in steps) if w)}]
        return {"seq": event.get("seq"), "lines": lines, "text": lines[0]["text"], "who": lines[0]["who"],
                "speech": lines[0]["text"] + (". " + lines[0]["who"].replace(" \u00b7 ", ". ") if lines[0]["who"] else "")}
    gos = list(event.get("gos") or [])
    if event.get("type") == "go" and event.get("player"):
        gos.append(event["player"])
    lines: list[dict[str, str]] = []
    if gos and not any(st.get("kind") == "go" for st in steps):
        lines.append({"text": "go", "who": " and ".join(gos) + " said go"})
    for st in steps:
        text = st.get("text") or (f"{st['points']} points" if st.get("points") else "")
        if text:
            lines.append({"text": text, "who": _who(st, names)})
    if not lines:
        return None
    text = ", ".join(line["text"] for line in lines)
    who = " \u00b7 ".join(line["who"] for line in lines if line["who"])
    speech = text + (". " + who.replace("+", "").replace(" \u00b7 ", ". ") if who else "")
    return {"seq": event.get("seq"), "lines": lines, "text": text, "who": who, "speech": speech}
