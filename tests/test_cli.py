"""The rules command line through main(), and once through the installed console script."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion import cli


def run(*argv: str, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def one_line_error(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()


def test_score_human():
    rc, out, err = run("score", "3H", "4D", "5H", "5C", "--starter", "JS")
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "Cribbage hand: 3H 4D 5H 5C   starter JS",
        "  fifteen            5H JS              2",
        "  fifteen            5C JS              2",
        "  pair               5H 5C              2",
        "  run                3H 4D 5H           3",
        "  run                3H 4D 5C           3",
        "12 points: fifteen two, fifteen four, a pair is six, a run of three is nine, and a run of three is twelve",
    ]


def test_score_json():
    rc, out, _ = run("score", "--json", "5♥", "5s", "5D", "jc", "--starter", "5C")
    d = json.loads(out)
    assert rc == 0 and d["total"] == 29
    assert d["items"][-1] == {"kind": "nobs", "cards": ["JC"], "points": 1}
    assert [i["kind"] for i in d["items"]] == ["fifteen"] * 8 + ["double pair royal", "nobs"]


def test_score_crib_game_and_options():
    assert json.loads(run("score", "--json", "--crib", "AH", "3H", "7H", "9H", "-s", "QS")[1])["total"] == 0
    assert json.loads(run("score", "--json", "AH", "3H", "7H", "9H", "-s", "QS")[1])["total"] == 4
    zero = ("2H", "4S", "6D", "8C", "--starter", "KD", "--json")
    assert json.loads(run("score", "--game", "lands-end", *zero)[1])["items"] == [{"kind": "zero", "cards": [], "points": 5}]
    assert json.loads(run("score", "--game", "lands-end", "--crib", *zero)[1])["total"] == 0
    assert json.loads(run("score", "-g", "lands-end", "--crib", "-o", "zero_bonus_pocket=true", *zero)[1])["total"] == 5
    assert json.loads(run("score", "-g", "lands-end", "-o", "zero_bonus=3", *zero)[1])["total"] == 3
    assert json.loads(run("score", "-g", "five-card", "5H,5S,5D", "--starter", "5C", "--json")[1])["total"] == 20
    rc, out, _ = run("score", "-g", "lands-end", "--crib", *zero[:-1])
    assert rc == 0 and out.splitlines()[0] == "Land's End pocket: 2H 4S 6D 8C   starter KD"


@pytest.mark.parametrize("argv,rc,message", [
    (["score", "5H", "5S", "5X", "JC", "--starter", "5C"], 1,
     "landsend: error: not a card: '5X' (write cards like 5H, 10h, TH, 5♥, K♠)"),
    (["score", "5H", "5S", "5H", "JC", "--starter", "5C"], 1, "landsend: error: duplicate card: 5H"),
    (["score", "5H", "5S", "5D", "--starter", "5C"], 1, "landsend: error: a Cribbage hand holds 4 cards, not 3"),
    (["score", "5H", "5S", "5D", "JC"], 2, "landsend score: the starter is missing: add --starter CARD"),
    (["score", "--starter", "5C"], 2, "landsend score: give the cards, e.g. landsend score 5H 5S 5D JC --starter 5C"),
    (["score", "--game", "poker", "5H", "5S", "5D", "JC", "-s", "5C"], 1, "landsend: error: unknown game 'poker'; choose one of: "
     "lands-end, lands-end-3, lands-end-4, lands-end-casino-2, lands-end-casino-3, lands-end-casino-4, lands-end-tabletop, "
     "cribbage, reverse-cribbage, table-top-cribbage, table-top-cribbage-31, five-card"),
    (["score", "-o", "zero_bonus", "5H", "5S", "5D", "JC", "-s", "5C"], 1, "landsend: error: an option is written KEY=VALUE, not 'zero_bonus'"),
    (["score", "-o", "colour=red", "5H", "5S", "5D", "JC", "-s", "5C"], 1, "landsend: error: unknown option 'colour' for cribbage"),
    (["score", "--jsonl", "5H"], 2, "landsend score --jsonl reads everything from stdin; give no cards or other options"),
    (["score", "--bogus"], 2, "landsend: unrecognized arguments: --bogus"),
    ([], 2, "landsend: a command is required: score, peg, grid, stats, replay, advise, lead, peg-advice, season (see landsend --help)"),
    (["deal"], 2, "landsend: argument COMMAND: invalid choice: 'deal' (choose from 'score', 'peg', 'grid', 'stats', 'replay', 'advise', 'lead', 'peg-advice', 'season')"),
    (["peg"], 2, "landsend peg: give the cards of the count in order, e.g. landsend peg 5H 6S 4D"),
    (["peg", "10H", "QS", "8D", "5C"], 1, "landsend: error: 5C would make the count 33, over 31"),
    (["peg", "-g", "lands-end-tabletop", "5H"], 1, "landsend: error: Tabletop Land's End has no matching phase (no pegging)"),
    (["grid", "5H"], 1, "landsend: error: a grid holds 25 cards, not 1"),
    (["grid", "-g", "cribbage", "5H"], 1, "landsend: error: cribbage is not played on a grid; choose one of: "
     "lands-end-tabletop, table-top-cribbage, table-top-cribbage-31"),
    (["stats", "-g", "lands-end-tabletop", "--crib"], 1, "landsend: error: Tabletop Land's End has no crib"),
])
def test_every_error_is_one_line_and_non_zero(argv, rc, message):
    code, out, err = run(*argv)
    assert (code, out) == (rc, "")
    assert one_line_error(err).startswith(message)


def test_score_jsonl_answers_every_line_in_order():
    lines = [
        {"game": "lands-end", "hand": ["2H", "4S", "6D", "8C"], "starter": "KD"},
        "not json",
        {"hand": ["5H"], "starter": "5C"},
        [1, 2],
        {"hand": "3H 4D 5H 5C", "starter": "JS", "crib": True},
        {"hand": ["5H", "5S", "5D", "JC"], "starter": "5C", "colour": "red"},
        {"hand": ["5H", "5S", "5D", "JC"]},
        {"game": "poker", "hand": ["5H", "5S", "5D", "JC"], "starter": "5C"},
        {"hand": ["5H", "5S", "5D", "JC"], "starter": "5C", "crib": "yes"},
        {"game": "lands-end", "hand": ["2H", "4S", "6D", "8C"], "starter": "KD", "crib": True,
         "options": {"zero_bonus_pocket": True}},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\n"
    rc, out, err = run("score", "--jsonl", stdin=stdin)
    res = [json.loads(line) for line in out.splitlines()]
    assert len(res) == len(lines)
    assert res[0]["total"] == 5 and res[0]["items"][0]["kind"] == "zero"
    assert res[1] == {"error": "line 2: not JSON (Expecting value)"}
    assert res[2] == {"error": "a Cribbage hand holds 4 cards, not 1"}
    assert res[3] == {"error": "line 4: expected a JSON object, not list"}
    assert res[4]["total"] == 12 and res[4]["label"] == "crib"
    assert res[5]["error"].startswith("line 6: unknown field 'colour'")
    assert res[6] == {"error": 'a request needs "hand" and "starter"'}
    assert res[7]["error"].startswith("unknown game 'poker'")
    assert res[8] == {"error": "crib is true or false, not 'yes'"}
    assert res[9]["total"] == 5
    assert rc == 1 and one_line_error(err) == 'landsend: 7 of 10 lines refused (see their "error")'


def test_score_jsonl_all_good_exits_zero():
    stdin = json.dumps({"game": "five-card", "hand": ["5H", "5S", "5D"], "starter": "5C"}) + "\n"
    assert run("score", "--jsonl", stdin=stdin)[:3:2] == (0, "")
    assert json.loads(run("score", "--jsonl", stdin=stdin)[1])["total"] == 20


def test_peg_human_json_and_jsonl():
    rc, out, _ = run("peg", "5H", "5S", "5D")
    assert rc == 0 and out.splitlines() == [
        "5H 5S 5D: fifteen and a pair royal for eight",
        "  fifteen            5H 5S 5D                   2",
        "  pair royal         5H 5S 5D                   6",
        "8 points, count 15"]
    assert json.loads(run("peg", "--json", "4H", "9S", "10D", "8C")[1])["points"] == 5
    stdin = "\n".join(json.dumps(x) for x in [
        {"game": "lands-end", "count": ["10H", "QS", "8D", "3C"]},
        {"count": ["10H", "QS", "8D", "5C"]},
        {"count": ["5C", "7H", "6D"]},
        {"game": "five-card"},
    ]) + "\n"
    rc, out, err = run("peg", "--jsonl", stdin=stdin)
    res = [json.loads(line) for line in out.splitlines()]
    assert res[0] == {"points": 2, "items": [{"kind": "thirty-one", "cards": ["10H", "QS", "8D", "3C"], "points": 2}],
                      "count": 31, "text": "thirty-one for two"}
    assert res[1] == {"error": "5C would make the count 33, over 31"}
    assert (res[2]["points"], res[2]["count"], res[2]["items"][0]["kind"]) == (3, 18, "run")
    assert res[3]["error"].startswith('a request needs "count"')
    assert rc == 1 and one_line_error(err) == 'landsend: 2 of 4 lines refused (see their "error")'


LAYOUT = "7C 7D 7H 8S 9S 10S KH 9C 5D 5H 3H 4C 10D 2S 4D AS QC JD 6H 2C KS 3C 8H 6D AC".split()


def test_grid_json_and_human():
    d = json.loads(run("grid", "--json", *LAYOUT)[1])
    assert (d["rows_total"], d["cols_total"]) == (43, 16)
    assert [r["total"] for r in d["cols"]] == [0, 0, 8, 4, 4]
    d = json.loads(run("grid", "--json", "--game", "lands-end-tabletop", *LAYOUT)[1])
    assert (d["rows_total"], d["cols_total"]) == (48, 25)
    rc, out, _ = run("grid", *LAYOUT)
    lines = out.splitlines()
    assert rc == 0 and lines[0] == "Table Top Cribbage, rows (non-dealer): 43"
    assert lines[1] == " row 1: 7C 7D 7H 8S 9S = 21: fifteen two, fifteen four, fifteen six, a pair royal is twelve, " \
        "a run of three is fifteen, a run of three is eighteen, and a run of three is twenty-one"
    assert "Table Top Cribbage, columns (dealer): 16" in lines
    assert "    nobs               JD                 1" in lines


def test_stats_json_and_table():
    rc, out, err = run("stats", "--json")
    d = json.loads(out)
    assert (rc, err) == (0, "")
    assert (d["hands"], d["counts"]["0"], d["counts"]["29"], d["counts"]["19"], round(d["mean"], 4)) == \
        (12_994_800, 1_009_008, 4, 0, 4.7692)
    d = json.loads(run("stats", "--json", "--game", "five-card")[1])
    assert (d["hands"], d["counts"]["20"]) == (1_082_900, 4)
    assert json.loads(run("stats", "--json", "--crib")[1])["counts"]["0"] == 1_022_208
    assert json.loads(run("stats", "--json", "-g", "lands-end")[1])["counts"]["0"] == 0
    lines = run("stats", "-g", "five-card")[1].splitlines()
    assert lines[0] == "1,082,900 hands (five-card); mean 2.5924"
    assert lines[2].split() == ["0", "260,220", "24.0299%"]


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal_and_only_after_a_moment():
    now = [0.0]
    tty = FakeTTY()
    bar = cli._ProgressBar(tty, "counting", delay=0.5, clock=lambda: now[0])
    bar(1, 13)
    assert tty.getvalue() == ""            # too early
    now[0] = 0.6
    bar(13, 26)
    assert tty.getvalue() == "\rcounting [###############...............]  50%"
    bar.close()
    assert tty.getvalue().endswith("\r")
    pipe = io.StringIO()
    quiet = cli._ProgressBar(pipe, "counting", delay=0.0, clock=lambda: now[0])
    quiet(5, 10)
    quiet.close()
    assert pipe.getvalue() == ""


def test_main_takes_further_subcommands():
    def configure(p):
        p.add_argument("word")

    def run_hello(args, streams):
        streams.stdout.write(f"hello {args.word}\n")
        return 0

    out, err = io.StringIO(), io.StringIO()
    hello = cli.Subcommand("hello", "say hello", configure, run_hello)
    assert cli.main(["hello", "table"], stdout=out, stderr=err, extra=(hello,)) == 0
    assert out.getvalue() == "hello table\n"
    assert run("hello", "table")[0] == 2          # nothing is left registered


def test_the_consoles_subcommands_are_one_explicit_list_named_apart_from_the_tables_commands():
    import companion.commands
    import firmware.cli
    assert [c.name for c in cli.subcommands()] == ["score", "peg", "grid", "stats", "replay", "advise", "lead",
                                                   "peg-advice", "season"]
    assert [c.name for c in firmware.cli.SUBCOMMANDS] == ["serve", "say", "release", "card", "backup", "restore"]
    # importing a subcommand's module registers nothing: there is no registry to fill
    assert not hasattr(cli, "COMMANDS") and not hasattr(cli, "register") and not hasattr(cli, "Command")
    assert cli.Subcommand is not companion.commands.Command


def test_help_exits_zero(capsys):
    assert cli.main(["--help"]) == 0
    assert "score" in capsys.readouterr().out


def test_console_script_runs_once_end_to_end():
    """The installed `landsend` (firmware.cli -> companion.cli), or `python -m companion` without it."""
    script = Path(sys.executable).parent / "landsend"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "companion"]
    stdin = json.dumps({"hand": ["5H", "5S", "5D", "JC"], "starter": "5C"}) + "\n" + "{\n"
    proc = subprocess.run(cmd + ["score", "--jsonl"], input=stdin, capture_output=True, text=True, timeout=60)
    assert proc.stderr == 'landsend: 1 of 2 lines refused (see their "error")\n'
    assert proc.returncode == 1
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0]["total"] == 29 and out[1]["error"].startswith("line 2: not JSON")


def test_serve_on_a_damaged_database_says_which_file_in_one_line(tmp_path):
    import firmware.cli

    bad = tmp_path / "table.db"
    bad.write_text("this is not a database\n" * 50)
    out, err = io.StringIO(), io.StringIO()
    rc = cli.main(["serve", "--sim", "--db", str(bad)], stdout=out, stderr=err, extra=firmware.cli.SUBCOMMANDS)
    out, err = out.getvalue(), err.getvalue()
    assert rc == 2 and out == ""
    assert one_line_error(err) == f"landsend serve: cannot open the table database {bad}: file is not a database"


def test_the_docstring_examples_of_the_console_s_shared_pieces_and_the_season_s_subcommand():
    import doctest

    import companion.console
    import companion.host
    import companion.season_cli
    for module in (companion.console, companion.season_cli, companion.host):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
