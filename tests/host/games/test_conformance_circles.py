"""Random play against the engine contract, for Darts and Wild West.

Many seeded random games (hypothesis draws the seeds and the player counts) must end and
never raise; every listed legal action is accepted; illegal actions raise IllegalAction and
change nothing; saves round-trip; undo equals the replay without the last entry; cubes and
coins are conserved and no holding goes negative.
"""
import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringside import games
from ringside.games import CHANCE, IllegalAction
from ringside.games import circles_common as cc
from ringside.games.darts import bots as darts_bots
from ringside.games.wildwest import bots as ww_bots

GAMES = ("darts", "wildwest")
MAX_ACTIONS = 5000


def snapshot(g):
    return (copy.deepcopy(g.state), g.over, copy.deepcopy(g.result), g.rng.getstate(), len(g.log))


def restore(g, snap):
    g.state, g.over, g.result, rs, n = copy.deepcopy(snap[0]), snap[1], copy.deepcopy(snap[2]), snap[3], snap[4]
    g.rng.setstate(rs)
    del g.log[n:]


def same(g, snap):
    return json.dumps(g.state, sort_keys=True) == json.dumps(snap[0], sort_keys=True) and \
        g.over == snap[1] and len(g.log) == snap[4]


def invariants(g):
    s = g.state
    if g.name == "darts":
        n = len(g.players)
        if s["round"]:
            for p in range(n):
                on_board = sum(c[p] for c in s["board"].values())
                assert on_board + s["aside"][p] + s["hand"][p] == g.data["turns_per_round"]
                assert min(s["hand"][p], s["aside"][p]) >= 0
        assert all(c >= 0 for cubes in s["board"].values() for c in cubes)
        assert all(v >= 0 for v in s["scores"])
        assert s["marble"] in g.side
    else:
        assert g.totals() == {"silver": 37, "gold": 24, "ruby": 12, "stone": 2, "tickets": 20, "shovels": 10,
                              "wagons": 5}
        holdings = list(s["purse"]) + list(s["bank"]) + list(s["mine"]) + [s["reserve"], s["bag"]] + \
            [b for b in s["bowl"] if b is not None]
        assert all(v >= 0 for h in holdings for v in h.values())
        for key in ("tickets", "shovels", "wagons"):
            assert min(s[key]) >= 0 and s["shop"][key] >= 0
        assert all(p["ruby"] <= g.data["ruby_limit"] for p in s["purse"])
        assert s["marble"] in g.side


def junk_actions(g, seat, rng):
    """Actions that must be refused: wrong seats, unknown types, broken fields."""
    n = len(g.players)
    legal = g.legal_actions(seat) if seat in g.to_act() else []
    out = [(seat, {"type": "no-such-action"}), (seat, {}), (seat, "landed"),
           (seat, {"type": "landed", "space": "nowhere", "travel": 10.0}),
           (seat, {"type": "landed", "space": g.side.ids[0], "travel": float("nan")})]
    others = [p for p in list(range(n)) + [CHANCE] if p not in g.to_act()]
    if others and legal:
        out.append((rng.choice(others), rng.choice(legal)))
    for a in legal[:3]:
        b = dict(a)
        for k in list(b):
            if k != "type":
                b[k] = rng.choice([None, "x", -7, 99, [1], {"a": 1}])
        if b not in legal and b.get("type") not in cc.RING_TYPES:
            out.append((seat, b))
    return out


def maybe_ambiguous(g, a, rng):
    """Sometimes report a landing as ambiguous with a neighbour, as the board may."""
    if a.get("type") == "landed" and rng.random() < 0.15:
        a = dict(a)
        a["alt"] = g.side.step(a["space"], rng.choice(cc.DIRECTIONS))
    return a


def play(name, n, seed, check_every=9, sample=10):
    g = games.new(name, ["p%d" % i for i in range(n)], seed=seed)
    rng = random.Random(seed)
    invariants(g)
    steps = 0
    while not g.over:
        assert steps < MAX_ACTIONS, "the game did not end"
        seats = g.to_act()
        assert seats, "no one may act, yet the game is not over"
        seat = seats[0]
        legal = g.legal_actions(seat)
        assert legal, "%s must act but has no legal action" % seat
        if steps % check_every == 0:
            snap = snapshot(g)
            for a in (legal if len(legal) <= sample else rng.sample(legal, sample)):   # all accepted
                g.apply(seat, copy.deepcopy(a))
                invariants(g)
                restore(g, snap)
            for s2, bad in junk_actions(g, seat, rng):
                with pytest.raises(IllegalAction):
                    g.apply(s2, bad)
                assert same(g, snap)
        before = snapshot(g)
        a = g.chance_action() if seat == CHANCE else maybe_ambiguous(g, rng.choice(legal), rng)
        g.apply(seat, a)
        invariants(g)
        steps += 1
        if steps in (5, 25, 80):                  # undo is a replay of the whole log: a few suffice
            u = g.undo(1)
            assert json.dumps(u.state, sort_keys=True) == json.dumps(before[0], sort_keys=True)
    h = games.load(g.to_json())
    assert h.state == g.state and h.over and h.result == g.result
    assert g.undo(1).state == g.replay(len(g.log) - 1).state
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), n=st.integers(2, 5))
def test_random_darts_games_keep_the_contract(seed, n):
    g = play("darts", n, seed)
    assert g.result["winners"] and set(g.result["scores"]) == set(g.players)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), n=st.integers(2, 5))
def test_random_wildwest_games_keep_the_contract(seed, n):
    g = play("wildwest", n, seed)
    assert len(g.result["winners"]) == 1


@pytest.mark.parametrize("name", GAMES)
def test_many_seeded_random_games_end_and_keep_the_invariants(name):
    lengths = []
    for seed in range(30):
        g = games.new(name, ["p%d" % i for i in range(2 + seed % 4)], seed=1000 + seed)
        rng = random.Random(seed)
        while not g.over:
            assert len(g.log) < MAX_ACTIONS
            seat = g.to_act()[0]
            if seat == CHANCE:
                g.apply(seat, g.chance_action())
            else:
                g.apply(seat, maybe_ambiguous(g, rng.choice(g.legal_actions(seat)), rng))
            invariants(g)
        lengths.append(len(g.log))
    assert min(lengths) > 5


@pytest.mark.parametrize("name", GAMES)
def test_bot_games_end_with_a_winner(name):
    mod = darts_bots if name == "darts" else ww_bots
    for seed in range(4):
        n = 2 + seed
        g = games.new(name, ["p%d" % i for i in range(n)], seed=seed)
        who = [mod.make(["good", "weak", "random"][p % 3]) for p in range(n)]
        rng = random.Random(seed)
        k = 0
        while not g.over and k < MAX_ACTIONS:
            s = g.to_act()[0]
            a = g.chance_action() if s == CHANCE else who[s].choose(g, s, rng)
            g.apply(s, a)
            invariants(g)
            k += 1
        assert g.over and g.result["winners"]


@pytest.mark.parametrize("name", GAMES)
def test_corrupt_saves_give_a_clear_error(name):
    g = games.new(name, ["a", "b"], seed=1)
    games.play_random(g, random.Random(1), max_actions=10)
    d = json.loads(g.to_json())
    d["log"][3][1] = {"type": "teleport"}
    with pytest.raises(games.GameError, match="does not replay"):
        games.load(json.dumps(d))
    with pytest.raises(games.GameError, match="not valid JSON"):
        games.load(g.to_json()[:-5])


def test_the_same_seed_gives_the_same_game():
    for name in GAMES:
        a = games.play_random(games.new(name, ["a", "b", "c"], seed=11), random.Random(3))
        b = games.play_random(games.new(name, ["a", "b", "c"], seed=11), random.Random(3))
        assert a.log == b.log and a.result == b.result


# ----- the table binding, for any Circles game (ringside.table, ringside play) -----

from ringside.app import cli  # noqa: E402
from ringside.table import Table, frame_action, load_table, read_save  # noqa: E402


class FakePort:
    """A scripted board: frames come out in order, one batch per wait()."""
    simulated = False
    connected = True

    def __init__(self, batches, refuse=()):
        self.batches = list(batches)
        self.sent = []
        self.refuse = set(refuse)
        self.waited = 0

    def send(self, kind, **fields):
        self.sent.append((kind, fields))
        return kind not in self.refuse

    def events(self):
        return self.batches.pop(0) if self.batches else []

    def wait(self, ms):
        self.waited += ms


def test_board_frames_become_ring_actions():
    side = cc.load_side("darts")
    assert frame_action(side, "landed", {"sp": 12, "alt": 5, "ang": 34200, "trv": -21450, "conf": 80}) == \
        {"type": "landed", "space": "12", "travel": -214.5, "alt": "5", "conf": 80}
    assert frame_action(side, "off_ring", {"ang": 100, "trv": 51200}) == {"type": "off_ring", "travel": 512.0}
    for bad in ({"sp": 99, "trv": 100}, {"sp": 12}, {"sp": 12, "trv": "x"}, {"sp": 12, "alt": 20, "trv": 5}):
        with pytest.raises(ValueError):
            frame_action(side, "landed", bad)


def test_a_malformed_event_is_logged_and_ignored_and_a_lost_board_pauses():
    g = games.new("darts", ["a", "b"], seed=1)
    said = []
    port = FakePort([[], [(1, "landed", {"sp": "nowhere", "trv": 3})],
                     [(2, "link_lost", {"why": "cable"})], [], [], [],
                     [(3, "link_restored", {})],
                     [(4, "landed", {"sp": 7, "trv": 36100, "conf": 100})]])
    t = Table(g, port, log=said.append)
    a = t.wait_result(60)          # 60 ms of waiting allowed: the pause does not count
    assert a == {"type": "landed", "space": "7", "travel": 361.0, "conf": 100}
    assert t.ignored == 1 and any("malformed" in s for s in said)
    assert any("paused" in s for s in said) and any("back" in s for s in said)
    assert port.waited > 60
    t.apply(0, a)
    assert ("side", {"name": "darts"}) in port.sent


def test_a_board_that_refuses_leds_is_left_alone_and_the_game_goes_on():
    g = games.new("darts", ["a", "b"], seed=1)
    said = []
    port = FakePort([], refuse={"player", "paint", "pulse"})
    t = Table(g, port, log=said.append)
    t.apply(0, {"type": "landed", "space": "7", "travel": 360.0})
    assert not t.leds_on and any("refused the LED scene" in s for s in said)
    n = len(port.sent)
    t.apply(1, {"type": "off_ring"})
    assert len(port.sent) == n and t.game.state["phase"] == "flick"


def test_it_is_on_corrects_the_last_flick_and_replays(tmp_path):
    g = games.new("wildwest", ["a", "b"], seed=1)
    t = Table(g, None, save_path=tmp_path / "s.json")
    t.apply(0, {"type": "landed", "space": "dig-1", "travel": -36.0})     # the board said dig-1
    t.apply(0, {"type": "resolve"})
    assert t.game.to_act() == [1]
    t.correct("gold-1")                     # it was on gold-1: too short; the resolve is undone
    assert t.game.state["marble"] == "gold-1" and t.game.to_act() == [1] and len(t.game.log) == 1
    assert t.game.log[0][1]["space"] == "gold-1"
    assert read_save(tmp_path / "s.json")[0].log == t.game.log


def test_saves_round_trip_and_corrupt_saves_say_why(tmp_path):
    g = games.new("darts", ["a", "b"], seed=4)
    games.play_random(g, random.Random(4), max_actions=30)
    t = Table(g, None, seats={0: "human", 1: "good"}, meta={"board": "typed"})
    p = t.save(tmp_path / "t.json")
    g2, seats, meta = read_save(p)
    assert g2.state == g.state and seats == {0: "human", 1: "good"} and meta == {"board": "typed"}
    assert load_table(g.to_json())[0].state == g.state          # a plain game save works too
    (tmp_path / "bad.json").write_text(p.read_text()[:-20])
    with pytest.raises(games.GameError, match="not valid JSON"):
        read_save(tmp_path / "bad.json")
    with pytest.raises(games.GameError, match="no saved game there"):
        read_save(tmp_path / "missing.json")


def _cli(monkeypatch, capsys, argv, lines=()):
    feed = iter(lines)

    def fake_input(prompt=""):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr("builtins.input", fake_input)
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ringside_play_typed_then_resume(monkeypatch, capsys, tmp_path):
    save = str(tmp_path / "g.json")
    code, out, err = _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann,Bob", "--typed", "--seed", "5",
                                                "--save", save],
                          ["landed 7 ccw", "off", "landed 12 ccw", "landed 33", "undo", "landed 12 ccw", "quit"])
    assert code == 0 and "Ann got closest to the 7 and starts" in out
    assert "no space '33'" in out and "undone: 1 action" in out and "Ann hit the 12" in out
    g, seats, meta = read_save(save)
    assert seats == {0: "human", 1: "human"} and meta["board"] == "typed" and len(g.log) == 3
    code, out, err = _cli(monkeypatch, capsys, ["resume", save], ["it is on 5", "quit"])
    assert code == 0 and "corrected: the marble is on 5" in out
    assert read_save(save)[0].log[-1][1]["space"] == "5"


def test_ringside_play_bots_on_the_simulated_ring(monkeypatch, capsys, tmp_path):
    code, out, err = _cli(monkeypatch, capsys, ["play", "wildwest", "--bots", "Cy:good,Dee:weak", "--sim",
                                                "--no-calibrate", "--seed", "2", "--save",
                                                str(tmp_path / "w.json")])
    assert code == 0 and "Game over:" in out and "bought the ranch" in out


def test_ringside_play_bad_input_is_one_line(monkeypatch, capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for argv, msg in ((["play", "--load", str(bad)], "not valid JSON"),
                      (["play", "darts", "--players", "Ann", "--bots", "Cy:genius", "--typed"], "no Darts bot"),
                      (["play", "chess", "--players", "a,b", "--typed"], "no game called"),
                      (["play", "darts", "--players", "Ann", "--typed", "--hard"], "no harder variant"),
                      (["play", "darts", "--typed"], "no players")):
        code, out, err = _cli(monkeypatch, capsys, argv)
        assert code == 2 and msg in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bench_games_reports_throughput():
    from ringside.bench import games as bench
    r = bench.run("wildwest", 3, seed=1)
    assert r["games"] == 3 and r["errors"] == 0 and r["finished"] == 3
    assert r["games_per_second"] > 0 and r["avg_actions_per_game"] > 5
    assert bench.run("darts", 2, seed=1, level="random")["errors"] == 0


def test_a_board_lost_while_sending_pauses_the_game_until_it_is_back():
    from ringside.link import LinkError
    from ringside.table import LinkPort

    class FlakyLink:
        connected = True

        def __init__(self):
            self.calls, self.waits = [], 0

        def command(self, kind, **fields):
            self.calls.append(kind)
            if len(self.calls) == 1:
                raise LinkError("the board connection was lost (cable)")
            if kind == "paint":
                raise LinkError("the board refused paint: bad colour", why="bad_colour")

        def wait_connected(self, timeout):
            self.waits += 1
            return self.waits >= 3

    link = FlakyLink()
    said = []
    port = LinkPort(link)
    port.log = said.append
    assert port.send("side", name="darts") is True
    assert link.calls == ["side", "side"] and link.waits == 3
    assert "paused" in said[0] and "back" in said[1]
    assert port.send("paint", c="zz", sp="7") is False


@pytest.mark.parametrize("name", GAMES)
def test_bots_also_choose_without_an_rng(name):
    """ARCHITECTURE's bot is choose(game, seat): a bot then uses its own seeded RNG."""
    mod = darts_bots if name == "darts" else ww_bots
    runs = []
    for _ in range(2):
        g = games.new(name, ["a", "b"], seed=3)
        bot = mod.make("weak", seed=9)
        for _ in range(12):
            s = g.to_act()[0]
            g.apply(s, g.chance_action() if s == CHANCE else bot.choose(g, s))
        runs.append(g.log)
    assert runs[0] == runs[1]
    g = games.new(name, ["a", "b"], seed=3)
    assert mod.choose(g, 0) in g.legal_actions(0) or cc.is_ring_action(mod.choose(g, 0))
