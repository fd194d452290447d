"""Phones that belong to a seat (issue 14): join with a seat, change it, one phone per seat, and a card
entered on Ann's phone without picking a player is Ann's."""

from __future__ import annotations

import pytest

from companion.table import Table
from web import create_app
from test_web_api import Phone


@pytest.fixture
def app(tmp_path):
    t = Table.memory(default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    yield create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=t)
    t.close()


@pytest.fixture
def host(app):
    p = Phone(app, "10.0.0.1")
    assert p.claim().status_code == 200
    return p


def join(app, host, addr, **body):
    p = Phone(app, addr)
    code = host.get("/api/session").get_json()["join_code"]
    return p, p.post("/api/join", {"code": code, **body})


def restarted(tmp_path):
    """Return the app started (again) on the table database in ``tmp_path``: the power came back."""
    return create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "DATABASE": str(tmp_path / "t.db"),
                       "TRUSTED_HOSTS": ["localhost"]})


def hosted(app):
    """Return the host's phone of ``app``, with a two-hand Land's End match (Ann, Bob) started."""
    host = Phone(app, "10.0.0.1")
    host.claim()
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    return host


def carried(cookie, app, addr):
    """Return the phone with session ``cookie`` at ``addr``, talking to ``app`` (after a restart)."""
    p = Phone.__new__(Phone)
    p.client = app.test_client()
    p.client.environ_base["REMOTE_ADDR"] = addr
    p.client.set_cookie("landsend", cookie, domain="localhost")
    p.csrf = p.client.get("/api/session").get_json()["csrf"]
    return p


def test_a_phone_joins_as_a_seat_and_its_cards_are_that_players(app, host):
    ann, r = join(app, host, "10.0.0.2", seat="ann")
    assert r.status_code == 200 and r.get_json()["seat"] == "Ann"
    assert host.get("/api/session").get_json()["seats"] == {"Ann": 1, "Bob": 0}
    assert ann.cmd({"type": "turnup", "card": "KC"}).status_code == 200
    # Ann leads (Bob deals): her phone's card needs no player
    r = ann.cmd({"type": "play", "card": "10S"})
    assert r.status_code == 200 and r.get_json()["event"]["player"] == "Ann"
    # Bob is to play at 10: every card fits, so Ann's card is refused saying Bob is to play
    r = ann.cmd({"type": "play", "card": "5H"})
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("it is Bob's turn; Ann can play 5H only if Bob said go, but at a count "
                                            "of 10 every card fits")
    # the host's phone belongs to nobody: a card without a player goes to whoever is to play
    r = host.cmd({"type": "play", "card": "KD"})
    assert r.get_json()["event"]["player"] == "Bob" and r.get_json()["event"]["by_turn"] is True
    # a player picked on Ann's phone stays that player
    r = ann.cmd({"type": "play", "card": "8H", "player": "Bob"})
    assert r.status_code == 400 and "Bob" in r.get_json()["error"]


def test_near_31_a_seat_phone_card_implies_the_go_of_a_player_who_could_not_play(app, host):
    ann, _ = join(app, host, "10.0.0.2", seat="Ann")
    for c in ("KC",):
        host.cmd({"type": "turnup", "card": c})
    for c in ("10S", "10D", "9H"):
        assert host.cmd({"type": "play", "card": c}).status_code == 200
    # count 29, Bob to play: Bob may hold nothing under 3, so Ann's 2D says Bob went go
    r = ann.cmd({"type": "play", "card": "2D"})
    assert r.status_code == 200
    assert r.get_json()["event"]["player"] == "Ann" and r.get_json()["event"]["gos"] == ["Bob"]


def test_one_phone_per_seat_unless_the_host_allows_more(app, host):
    ann, _ = join(app, host, "10.0.0.2", seat="Ann")
    other, r = join(app, host, "10.0.0.3", seat="Ann")
    assert r.status_code == 409 and "already Ann's" in r.get_json()["error"]
    assert other.get("/api/session").get_json()["role"] == "visitor"      # the join was not half done
    _, r = join(app, host, "10.0.0.3", seat="Zed")
    assert r.status_code == 400 and "'Zed' is not playing" in r.get_json()["error"]
    phone, r = join(app, host, "10.0.0.4")
    assert r.status_code == 200 and r.get_json()["seat"] is None
    assert other.post("/api/seat", {"seat": "Bob"}).status_code == 403      # not joined
    assert phone.post("/api/seat", {"seat": "Ann"}).status_code == 409
    assert phone.post("/api/seat", {"shared": True}).status_code == 403
    assert host.post("/api/seat", {"shared": True}).get_json()["shared_seats"] is True
    r = phone.post("/api/seat", {"seat": "Ann"})
    assert r.status_code == 200 and r.get_json()["seat"] == "Ann"
    assert host.get("/api/session").get_json()["seats"] == {"Ann": 2, "Bob": 0}
    r = ann.post("/api/seat", {"seat": None})
    assert r.get_json()["seat"] is None
    assert ann.post("/api/seat", {}).status_code == 400
    assert ann.post("/api/seat", {"seat": 3}).status_code == 400


def test_a_visitor_has_no_seat_and_a_release_frees_every_seat(app, host):
    visitor = Phone(app, "10.0.0.9")
    assert visitor.post("/api/seat", {"seat": "Ann"}).status_code == 403
    assert "seat" not in visitor.get("/api/session").get_json()
    ann, _ = join(app, host, "10.0.0.2", seat="Ann")
    app.extensions["landsend"].release()
    host.claim()
    assert host.get("/api/session").get_json()["seats"] == {"Ann": 0, "Bob": 0}


def test_a_seat_not_at_the_new_match_belongs_to_nobody(app, host):
    ann, _ = join(app, host, "10.0.0.2", seat="Ann")
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["Cy", "Di"], "first_dealer": "Di"})
    assert ann.get("/api/session").get_json()["seat"] is None
    r = ann.cmd({"type": "turnup", "card": "KC"})
    r = ann.cmd({"type": "play", "card": "10S"})
    assert r.get_json()["event"]["player"] == "Cy"


def test_seats_survive_a_restart_and_a_release_frees_them_for_good(tmp_path):
    """A power cut keeps Ann's phone on Ann's seat (and the host's shared choice); after a release and a
    restart every seat is free."""
    def started():
        return restarted(tmp_path)
    a = started()
    host = hosted(a)
    ann, r = join(a, host, "10.0.0.2", seat="Ann")
    assert r.get_json()["seat"] == "Ann"
    assert host.post("/api/seat", {"shared": True}).status_code == 200
    cookies = [p.client.get_cookie("landsend").value for p in (host, ann)]
    a.extensions["landsend"].close()

    b = started()                                   # the power came back
    host, ann = (carried(c, b, addr) for c, addr in zip(cookies, ("10.0.0.1", "10.0.0.2")))
    info = ann.get("/api/session").get_json()
    assert (info["role"], info["seat"], info["shared_seats"]) == ("player", "Ann", True)
    assert host.get("/api/session").get_json()["seats"] == {"Ann": 1, "Bob": 0}
    ann.cmd({"type": "turnup", "card": "KC"})
    r = ann.cmd({"type": "play", "card": "10S"})    # still Ann's phone: its card is Ann's
    assert r.status_code == 200 and r.get_json()["event"]["player"] == "Ann"
    b.extensions["landsend"].release()
    b.extensions["landsend"].close()

    c = started()
    host = carried(cookies[0], c, "10.0.0.1")
    assert host.claim().status_code == 200
    info = host.get("/api/session").get_json()
    assert (info["seats"], info["shared_seats"]) == ({"Ann": 0, "Bob": 0}, False)
    c.extensions["landsend"].close()


def test_a_seat_change_tells_every_page_to_read_its_session_again(app, host):
    """Other phones learn that Bob has a phone of his own (they then leave Bob's show to it)."""
    heard = []
    b = app.extensions["landsend"].broadcaster
    publish = b.publish
    b.publish = lambda kind, data: (heard.append(kind), publish(kind, data))[1]
    bob, _ = join(app, host, "10.0.0.3")
    heard.clear()
    assert bob.post("/api/seat", {"seat": "Bob"}).status_code == 200
    assert heard == ["access"]
    assert host.post("/api/seat", {"shared": True}).status_code == 200
    assert heard == ["access", "access"]
    assert bob.post("/api/seat", {"seat": "Zed"}).status_code == 400     # refused: nothing changed, nothing told
    assert heard == ["access", "access"]
    assert host.get("/api/session").get_json()["seats"] == {"Ann": 0, "Bob": 1}


def test_a_card_on_its_players_phone_is_never_a_guess_and_the_phone_whose_card_an_amend_moves_is_told(app, host):
    """Issue 26: near 31 a card entered for the player to play is a guess (the show's question names it), one
    entered on the player's own phone is not; an amend that moves a card tells the phone that had entered it."""
    heard = []
    b = app.extensions["landsend"].broadcaster
    publish = b.publish
    b.publish = lambda kind, data: (heard.append((kind, data)), publish(kind, data))[1]
    bob, _ = join(app, host, "10.0.0.3", seat="Bob")
    assert bob.get("/api/session").get_json()["phone"] == "Bob's phone"
    assert host.get("/api/session").get_json()["phone"] == "the host's phone"
    host.cmd({"type": "turnup", "card": "KC"})
    for c in ("10S", "QH", "5C"):                         # 25, Bob to play: he might have said go
        assert host.cmd({"type": "play", "card": c}).status_code == 200
    assert host.get("/api/table").get_json()["hand"]["may_play"] == ["Bob", "Ann"]
    assert bob.cmd({"type": "play", "card": "4D"}).status_code == 200          # Bob's own phone: sure
    snap = host.get("/api/table").get_json()
    assert [(c["card"], c["guess"]) for c in snap["hand"]["credits"]][-1] == ("4D", False)
    assert snap["hand"]["may_play"] == ["Ann", "Bob"]
    # at 29 Ann may have said go: the host's 2D for the player to play is the table's guess
    go = host.cmd({"type": "play", "card": "2D"}).get_json()["event"]
    snap = host.get("/api/table").get_json()
    assert snap["hand"]["credits"][-1] == {"card": "2D", "player": "Ann", "seq": go["seq"], "at": 29, "guess": True}
    # the 2D was Bob's (Ann had said go): the amend moves it, and the host's phone, which entered it, is told;
    # the note waits in its session until it has read it (a phone whose stream was down then still gets it)
    heard.clear()
    assert bob.cmd({"type": "amend", "seq": go["seq"], "player": "Bob"}).status_code == 200
    assert [d for k, d in heard if k == "moved"] == [{"seq": go["seq"] + 1}]
    notes = host.get("/api/session").get_json()["notes"]
    assert [n["text"] for n in notes] == [
        f"Your 2D is now Bob's (it was Ann's): Bob's phone amended it (event {go['seq']} amended: 2D is Bob's, not Ann's)."]
    assert bob.get("/api/session").get_json()["notes"] == []          # the phone that amended knows
    assert host.get("/api/session").get_json()["notes"] == notes     # read again after a reconnect
    assert host.post("/api/notes/read", {"upto": notes[-1]["id"]}).get_json() == {"notes": []}
    assert host.get("/api/session").get_json()["notes"] == []


def test_an_amend_that_removes_or_moves_a_go_tells_the_phone_that_entered_it(app, host):
    """Issue 26 item 3: a go is an entry too. At 25 the host's phone says go for Bob, who held 4D; Bob's phone
    removes the go, and the host's phone is told; a go moved to another player is told the same way."""
    bob, _ = join(app, host, "10.0.0.3", seat="Bob")
    host.cmd({"type": "turnup", "card": "KC"})
    for c in ("10S", "5D", "10H"):                        # Ann, Bob, Ann: 25
        assert host.cmd({"type": "play", "card": c}).status_code == 200
    go = host.cmd({"type": "go", "player": "Bob"}).get_json()["event"]
    r = bob.cmd({"type": "play", "card": "4D"})
    assert r.status_code == 400 and r.get_json()["amend"] == {"type": "amend", "seq": go["seq"], "remove": True}
    assert bob.cmd(r.get_json()["amend"]).status_code == 200
    notes = host.get("/api/session").get_json()["notes"]
    assert [n["text"] for n in notes] == [
        f"Your go for Bob was taken out: Bob's phone amended it (event {go['seq']} amended: Bob's go removed)."]
    # by hand: 10S (Ann) 5D fifteen (Bob's, two for Ann: L2) 10H (25) 4D (Bob, 29); Ann 2, Bob 0
    assert bob.cmd({"type": "play", "card": "4D"}).status_code == 200
    assert [s["score"] for s in host.get("/api/table").get_json()["sides"]] == [2, 0]


def test_a_note_not_yet_read_survives_a_power_cut_and_a_release_forgets_it(tmp_path):
    """Issue 26 item 3: the note to the phone whose go an amend took out is kept in the table's database until
    that phone has read it: after a power cut the host's phone is still told; a read one stays read; an entry made
    before a cut and moved after it is told too; a release of the table forgets every note."""
    def started():
        return restarted(tmp_path)
    a = started()
    host = hosted(a)
    bob, _ = join(a, host, "10.0.0.3", seat="Bob")
    host.cmd({"type": "turnup", "card": "KC"})
    for c in ("10S", "5D", "10H"):                        # Ann, Bob, Ann: 25 (with client ids, as the page sends)
        assert host.cmd({"type": "play", "card": c, "client_id": f"tap-{c}"}).status_code == 200
    go = host.cmd({"type": "go", "player": "Bob", "client_id": "tap-go"}).get_json()["event"]
    assert bob.cmd({"type": "amend", "seq": go["seq"], "remove": True}).status_code == 200
    told = [f"Your go for Bob was taken out: Bob's phone amended it (event {go['seq']} amended: Bob's go removed)."]
    assert [n["text"] for n in host.get("/api/session").get_json()["notes"]] == told
    cookies = [p.client.get_cookie("landsend").value for p in (host, bob)]
    a.extensions["landsend"].close()

    b = started()                                     # the power came back before the host's phone had read it
    host, bob = (carried(c, b, addr) for c, addr in zip(cookies, ("10.0.0.1", "10.0.0.3")))
    notes = host.get("/api/session").get_json()["notes"]
    assert [n["text"] for n in notes] == told
    assert bob.get("/api/session").get_json()["notes"] == []
    assert host.post("/api/notes/read", {"upto": notes[-1]["id"]}).get_json() == {"notes": []}
    # a card Bob's phone made before the host's 5D and 10H: refused as stale, with what came meanwhile and from
    # which phone, named after the cut from the entries' stored client ids
    r = bob.cmd({"type": "play", "card": "4D", "if_seq": 2, "client_id": "late"})
    assert r.status_code == 400 and r.get_json()["stale"] is True
    assert [(m["text"], m.get("by")) for m in r.get_json()["meanwhile"]][:2] == [
        ("5D for Bob", "the host's phone"), ("10H for Ann", "the host's phone")]
    b.extensions["landsend"].close()

    c = started()                                     # read before the next cut: not told again
    host = carried(cookies[0], c, "10.0.0.1")
    assert host.get("/api/session").get_json()["notes"] == []
    c.extensions["landsend"].close()

    d = started()                                     # the host's 5D, entered before the cuts, moved after them:
    # the phone that entered it is read from its stored client id, so it is still told
    host = carried(cookies[0], d, "10.0.0.1")
    bob = carried(cookies[1], d, "10.0.0.3")
    five = next(e for e in d.extensions["landsend"].table.history() if e.get("card") == "5D")
    assert bob.cmd({"type": "amend", "seq": five["seq"], "card": "5C"}).status_code == 200
    assert [n["text"] for n in host.get("/api/session").get_json()["notes"]] == [
        f"Your 5D for Bob is now 5C for Bob: Bob's phone amended it (event {five['seq']} amended: Bob's 5D is 5C)."]
    assert bob.get("/api/session").get_json()["notes"] == []
    d.extensions["landsend"].release()
    d.extensions["landsend"].close()
    e = started()
    host = carried(cookies[0], e, "10.0.0.1")
    assert host.claim().status_code == 200
    assert host.get("/api/session").get_json()["notes"] == []
    e.extensions["landsend"].close()


def test_the_host_hands_a_seat_to_a_phone_and_takes_it_back(app, host):
    """Issue 26 item 1: the host's session lists the phones at the table; the host makes phone 2 Bob's, and
    takes the seat back; another phone may not, and a refused hand-over changes nothing."""
    phone, _ = join(app, host, "10.0.0.3")
    listed = host.get("/api/session").get_json()["phone_list"]
    assert listed == [{"phone": 1, "name": "the host's phone", "seat": None},
                      {"phone": 2, "name": "phone 2", "seat": None}]
    assert "phone_list" not in phone.get("/api/session").get_json()
    r = host.post("/api/seat", {"phone": 2, "seat": "Bob"})
    assert r.status_code == 200 and r.get_json()["phone_list"][1] == {"phone": 2, "name": "Bob's phone", "seat": "Bob"}
    assert r.get_json()["seat"] is None                                  # the host's own phone is unchanged
    assert phone.get("/api/session").get_json()["seat"] == "Bob"
    assert phone.post("/api/seat", {"phone": 1, "seat": "Ann"}).status_code == 403
    before = host.get("/api/session").get_json()
    for body, status in (({"phone": 3, "seat": "Ann"}, 400), ({"phone": "2", "seat": "Ann"}, 400),
                         ({"phone": 2}, 400), ({"phone": 1, "seat": "Bob"}, 409), ({"phone": 2, "seat": "Zed"}, 400)):
        assert host.post("/api/seat", body).status_code == status, body
        assert host.get("/api/session").get_json() == before
    assert host.post("/api/seat", {"phone": 2, "seat": None}).status_code == 200
    assert phone.get("/api/session").get_json()["seat"] is None


def test_a_dropped_command_is_found_by_its_client_id_and_a_stored_one_can_be_undone(app, host):
    """Issue 26: Drop cannot recall a request the table already took; the page asks what became of it by its
    client id: stored and live (the newest: one undo takes it back), undone, or never stored (with the table's
    seq, so the page knows a request made at an older seq can never be taken any more)."""
    bob, _ = join(app, host, "10.0.0.3")
    assert bob.get("/api/entered/nothing1").status_code == 404
    host.cmd({"type": "turnup", "card": "KC"})
    now = bob.get("/api/table").get_json()["seq"]
    r = bob.post("/api/command", {"type": "play", "card": "10S", "client_id": "drop-1", "if_seq": now})
    assert r.status_code == 200
    seq = r.get_json()["seq"]
    got = bob.get("/api/entered/drop-1").get_json()
    assert (got["event"]["card"], got["event"]["seq"], got["live"], got["top"], got["seq"]) == ("10S", seq, True, True, seq)
    host.cmd({"type": "play", "card": "5D"})
    got = bob.get("/api/entered/drop-1").get_json()
    assert (got["live"], got["top"]) == (True, False)          # a later entry: amended away, not undone
    host.cmd({"type": "undo"})
    assert bob.get("/api/entered/drop-1").get_json()["top"] is True
    host.cmd({"type": "undo"})
    assert bob.get("/api/entered/drop-1").get_json()["live"] is False
    missing = bob.get("/api/entered/drop-2")
    assert missing.status_code == 404 and missing.get_json()["seq"] == seq + 3
    assert Phone(app, "10.0.0.9").get("/api/entered/drop-1").status_code == 403     # a visitor
    # a new match: the old match's command is not this match's entry
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    assert bob.get("/api/entered/drop-1").status_code == 404
