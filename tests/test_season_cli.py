"""``landsend season``: the text, --json, --csv, and its refusals (one line, exit 1)."""

from __future__ import annotations

import io
import json

import pytest

from companion.cli import main
from companion.table import Table
from season_db import Clock, build


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("season") / "t.db"
    clock = Clock()
    build(Table.open(path, clock=clock, default_match=None), clock).close()
    return str(path)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["season", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_text(db):
    code, out, _ = run("--db", db)
    assert code == 0
    assert out.splitlines()[0] == "Night 3 of 3 (2026-11-22, open): 2 games"
    assert "Settle up: Bob pays House 4; Cy pays Ann 1; Dee pays Ann 1" in out
    assert "Season: 3 nights" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("Ann") and "16.5" in line)
    assert row.split() == ["Ann", "+5", "3", "6", "3", "3", "1/0", "16.5", "6.0", "29", "1", "0"]


def test_json_and_csv(db, monkeypatch):
    monkeypatch.setenv("LANDSEND_DB", db)
    code, out, _ = run("--json", "--night", "1")
    data = json.loads(out)
    assert code == 0 and data["night"]["payments"] == [{"from": "Ann", "to": "Bob", "amount": 6}]
    assert [p["name"] for p in data["season"]["players"]] == ["Bob", "Ann", "House", "Dee", "Cy"]
    code, out, _ = run("--csv", "season", "--player", "cy")
    assert out.splitlines()[1].startswith("Cy,-15,2,2,0,2,")


@pytest.mark.parametrize("argv,words", [(["--night", "7"], "the nights are 1 to 3"),
                                        (["--player", "Zed"], "no player 'Zed'")])
def test_refusals(db, argv, words):
    code, out, err = run("--db", db, *argv)
    assert code == 1 and out == "" and words in err and err.count("\n") == 1


def test_no_database(tmp_path, monkeypatch):
    monkeypatch.delenv("LANDSEND_DB", raising=False)
    assert run()[0] == 1 and "give --db FILE" in run()[2]
    code, _, err = run("--db", str(tmp_path / "none.db"))
    assert code == 1 and "no table database at" in err and not (tmp_path / "none.db").exists()
