"""A composer's check of a tsume problem: cooks, variations and spare pieces (:func:`check`).

The check proves the main line (the solver's shortest mate, or a line the
composer gives) and then asks, at every move along it, what every *other* move
does:

- at an attacker move, every other checking move is searched for a mate (from
  the position after it, the defender to move: ``root_is_and_node_if_checked``).
  One that mates is a cook (余詰), except at the attacker's last move (最終手余詰,
  tolerated) and when its mate passes through a position of the main line,
  coming back to one up to the branch point or reaching a later one no sooner
  than the main line does (迂回手順, 手順前後: a detour, the same solution);
- at a defender move, every other reply is searched for the mate that follows
  it, bounded by what the main line leaves (``max_length``): a reply with no
  mate within that bound holds out longer than the main line (the main line is
  not the longest defence) or escapes; one mated in exactly as many moves is 変同;
  futile interpositions (無駄合) are recognised by the rule the solver uses
  (docs/FUTILE.md) and left out, as in the answer;
- the attacker's hand at the end of the main line and of every mating
  alternative is reported (駒余り).

All searches share one :class:`Solver` and its table, so what the main search
learnt answers most alternatives at once. Every question is first asked with
a small node cap, then again with caps ten times larger, until each is settled
or the limits are spent: cheap questions never wait behind a hard one. A
question the limits leave open is reported as undecided, and the verdict is
then "undecided", never "sound".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ._core import Position, Solver
from .check_report import FLAWS, Alternative, CheckReport, Kind, Side
from .settings import (
    DEFAULT_HASH_MB,
    DEFAULT_MIN_LENGTH_EFFORT,
    FUTILITY_NODE_CAP,
    SearchRequest,
    search_request,
)
from .types import MateResult, SearchProgress
from .verify import judge_drop

__all__ = ["check", "check_task", "CheckStopped", "FUTILITY_NODE_CAP", "PASS_NODE_CAPS"]

# Node caps of the successive passes over the open questions. The first pass
# settles most questions from the main search's table in a few hundred nodes
# (tendo: most alternatives take under 1,000 nodes); each further pass gives
# the questions still open ten times more. None: no cap but the limits.
PASS_NODE_CAPS: tuple[int | None, ...] = (10_000, 100_000, 1_000_000, 10_000_000, None)
# The solver judges a drop futile after proving the capture position within
# FUTILITY_NODE_CAP nodes (the core's kFutilityNodeCap, csrc/futility.h); the first
# futility question uses the same cap, so the check agrees with the answer's count.
# Later passes retry a question that cap left open with the pass's cap: a capture
# that mates is futile by the rule, however long the proof.
# From this cap on, a question that the pass leaves open is asked once more at
# the same cap on an empty table (a second Solver, so that the first keeps what
# the main search learnt). The questions still open by then are hard, and
# either table may be the better start: tendo poste-7te-04's ▲１二桂 (1c1b) at
# move 1 is disproved in 0.79 M nodes from an empty table but was still open
# after 49 M nodes on the shared one, while with every late search on an empty
# table banqueta-006 went from sound in 4.7 s to undecided at 10 s and
# banqueta-019 from 1.0 s to 5.1 s (tendo, 10 s a problem).
FRESH_TABLE_CAP = 1_000_000
# How often a search on the second table looks at the stop request (ms).
STOP_POLL_MS = 50


class CheckStopped(Exception):
    """Raised inside the check when ``should_stop`` turns true (never escapes :func:`check`)."""


# ---------------------------------------------------------------------------
# Limits of one check


class _Budget:
    """The time and nodes a check may still spend, and the stop request."""

    def __init__(
        self,
        time_limit_ms: int | None,
        nodes_limit: int | None,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        self.started = time.monotonic()
        self.deadline = None if time_limit_ms is None else self.started + time_limit_ms / 1000
        self.nodes_left = nodes_limit
        self.should_stop = should_stop or (lambda: False)
        self.nodes = 0

    def time_left_ms(self) -> int | None:
        if self.deadline is None:
            return None
        return int((self.deadline - time.monotonic()) * 1000)

    def spent(self) -> bool:
        """True when no further search may start (limits reached)."""
        left = self.time_left_ms()
        return (left is not None and left <= 0) or (
            self.nodes_left is not None and self.nodes_left <= 0
        )

    def limits(self, cap: int | None) -> tuple[int | None, int | None]:
        """(nodes_limit, time_limit_ms) for the next search under ``cap``."""
        nodes = cap
        if self.nodes_left is not None:
            nodes = self.nodes_left if nodes is None else min(nodes, self.nodes_left)
        return nodes, self.time_left_ms()

    def charge(self, nodes: int) -> None:
        self.nodes += nodes
        if self.nodes_left is not None:
            self.nodes_left -= nodes

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)


class _Searcher:
    """Searches on one Solver within a budget, honouring a stop request between searches.

    With ``fresh`` set, searches go to a second Solver instead (as large as the
    first, made on first use) whose table is cleared before each search: see
    :data:`FRESH_TABLE_CAP`. A stop request reaches that search through its
    progress callback, as no one else knows that Solver.
    """

    def __init__(self, solver: Solver, budget: _Budget, futile: bool) -> None:
        self.solver = solver
        self.budget = budget
        self.futile = futile
        self.fresh = False
        self._second: Solver | None = None

    def solve(
        self, sfen: str, *, and_root: bool, cap: int | None, max_length: int | None = None
    ) -> MateResult | None:
        """One search; None when the budget is spent. Raises CheckStopped on a stop request."""
        if self.budget.should_stop():
            raise CheckStopped
        if self.budget.spent():
            return None
        nodes, time_ms = self.budget.limits(cap)
        # Made (and validated) before the solver is armed below.
        request = SearchRequest(
            time_limit_ms=max(1, time_ms) if time_ms is not None else None,
            nodes_limit=max(1, nodes) if nodes is not None else None,
            root_is_and_node_if_checked=bool(and_root),
            post_search="MinLength",
            # A check asks for proven lengths within its own limits (no share of work
            # of its own); with none at all, the default share ends each search.
            min_length_effort=0
            if (nodes is not None or time_ms is not None)
            else DEFAULT_MIN_LENGTH_EFFORT,
            ignore_futile_interpositions=self.futile,
            max_length=max_length,
        )
        on_progress = None
        if self.fresh:
            if self._second is None:
                self._second = Solver(self.solver.hash_mb)
            solver = self._second
            solver.clear()
            second = solver

            def on_progress(_progress: SearchProgress) -> None:
                if self.budget.should_stop():
                    second.stop()
        else:
            solver = self.solver
            # arm() before the last look at the stop flag: a stop() that lands after
            # it is remembered by the solver, one that lands before it is seen here.
            if solver.state == "idle":
                solver.arm()
            if self.budget.should_stop():
                solver.disarm()
                raise CheckStopped
        result = solver.search(
            sfen, request, on_progress=on_progress, progress_interval_ms=STOP_POLL_MS
        )
        self.budget.charge(result.nodes)
        if self.budget.should_stop():
            raise CheckStopped
        return result


# ---------------------------------------------------------------------------
# The questions asked along the main line


@dataclass
class _Question:
    """One alternative move and what is known about it so far."""

    number: int  # 1-based number of the main-line move it replaces
    side: Side
    move: str
    child_sfen: str
    remaining: int  # plies the main line takes from here, its own move included
    kind: Kind = "undecided"
    line: tuple[str, ...] = ()
    length_exact: bool = False
    note: str | None = None
    nodes: int = 0
    # Open work: "futility" (is this drop futile?), "decide" (the kind),
    # "refine" (the kind is settled, the length not yet proven), or None.
    todo: str | None = "decide"
    captures: tuple[str, ...] = field(default_factory=tuple)

    @property
    def length(self) -> int | None:
        return len(self.line) if self.line else None


class _Check:
    """One check in progress: the main line, its questions and the searches."""

    def __init__(
        self,
        start: Position,
        main: Sequence[str],
        attacker: int,
        searcher: _Searcher,
        defences: bool,
        on_finding: Callable[[Alternative], None] | None,
        attacks: bool = True,
    ) -> None:
        self.main = tuple(main)
        self.searcher = searcher
        self.on_finding = on_finding
        self.positions = [start.copy()]
        for m in self.main:
            pos = self.positions[-1].copy()
            pos.push_usi(m)
            self.positions.append(pos)
        # Later main-line positions by full key (board, hands, side): an
        # alternative whose mate passes through one of them is a detour.
        self.main_keys = {p.full_key: i for i, p in enumerate(self.positions)}
        self.questions: list[_Question] = []
        n = len(self.main)
        # The number of the main line's first defender move (n + 1: none).
        self.first_defence = next(
            (i + 1 for i, p in enumerate(self.positions[:n]) if p.turn != attacker), n + 1
        )
        for i, pos in enumerate(self.positions):
            attacking = pos.turn == attacker
            if i == n and attacking:
                break  # a line that ends on a defender move is refused before this
            if attacking:
                if not attacks:
                    continue
                others = [m for m in pos.check_moves() if m != self.main[i]]
            elif defences:
                others = [m for m in pos.evasions() if i == n or m != self.main[i]]
            else:
                continue
            for m in others:
                child = pos.copy()
                child.push_usi(m)
                q = _Question(i + 1, "attack" if attacking else "defence", m, child.sfen(), n - i)
                if not attacking and searcher.futile and m[1] == "*":
                    q.todo = "futility"
                self.questions.append(q)

    # -- one question, one step ---------------------------------------------

    def step(self, q: _Question, cap: int | None) -> None:
        """Work on ``q`` with searches capped at ``cap`` nodes (None: only the budget)."""
        if q.todo == "futility":
            self._futility(q, FUTILITY_NODE_CAP if cap == PASS_NODE_CAPS[0] else cap)
        if q.todo == "decide":
            if q.side == "attack":
                self._attack(q, cap)
            else:
                self._defence(q, cap)
        elif q.todo == "refine":
            self._refine(q, cap)

    def _search(self, q: _Question, sfen: str, **kw: Any) -> MateResult | None:
        r = self.searcher.solve(sfen, **kw)
        if r is not None:
            q.nodes += r.nodes
        return r

    def _futility(self, q: _Question, cap: int | None) -> None:
        # The rule (docs/FUTILE.md) is verify.judge_drop's; the check searches its
        # questions within its budget.
        def mate_status(sfen: str) -> str | None:
            r = self._search(q, sfen, and_root=True, cap=cap)
            return None if r is None else r.status

        verdict, capture = judge_drop(self.positions[q.number - 1].copy(), q.move, mate_status)
        if verdict == "spent":
            return  # budget spent: still open
        if verdict == "futile":
            q.kind, q.todo, q.line = "futile", None, (q.move, capture or "")
            q.note = f"taken by {capture}, mate without the piece"
        elif verdict == "unsettled":
            q.note = "futility not settled"
        else:
            q.todo, q.note = "decide", None

    def _attack(self, q: _Question, cap: int | None) -> None:
        r = self._search(q, q.child_sfen, and_root=True, cap=cap)
        if r is None:
            return
        if r.status == "nomate":
            q.kind, q.todo, q.note = "no_mate", None, None
        elif r.status == "mate":
            q.line = (q.move, *r.moves)
            q.length_exact = r.min_length_proven
            q.note = None
            q.kind = self._attack_kind(q)
            q.todo = None if q.length_exact else "refine"
            self._found(q)
        else:
            q.note = _why_open(r)

    def _attack_kind(self, q: _Question) -> Kind:
        if q.number == len(self.main) > 1:
            # Tolerated at the last move of a longer line (最終手余詰). In a one-move
            # problem the last move is the whole solution: another mate there is a cook.
            return "last_move"
        # A mate that passes through a position of the main line is no solution
        # of its own: after a position up to the branch point (a loop) it goes
        # on as some move there would, and after a later one as the main line
        # or an alternative asked there. Only a shortcut to a later position
        # (fewer plies than the main line takes to it) is a cook.
        pos = self.positions[q.number - 1].copy()
        for k, m in enumerate(q.line, 1):
            pos.push_usi(m)
            j = self.main_keys.get(pos.full_key)
            if j is None:
                continue
            if j < q.number:
                q.note = f"comes back to the position before move {j + 1} (a loop)"
                return "detour"
            late = k - (j - q.number + 1)
            if late < 0:
                q.note = f"reaches the position before move {j + 1} {-late} plies sooner"
                return "cook"
            how = f"{late} plies later" if late else "in as many plies (手順前後)"
            q.note = f"reaches the position before move {j + 1} {how}"
            return "detour"
        return "cook"

    def _defence(self, q: _Question, cap: int | None) -> None:
        if q.remaining == 0:
            # A reply at the end of the main line that is no futile
            # interposition: the main line does not end in mate.
            q.kind, q.todo, q.note = "longer", "refine", "the main line does not end in mate"
            self._found(q)
            return
        bound = q.remaining - 1  # the mate after this reply must fit in what the main line leaves
        r = self._search(q, q.child_sfen, and_root=False, cap=cap, max_length=bound)
        if r is None:
            return
        if r.status == "mate":
            q.line = (q.move, *r.moves)
            q.length_exact = r.min_length_proven
            self._defence_kind(q)
            self._found(q)
        elif r.stop_reason == "length" or r.status == "nomate":
            q.kind, q.todo, q.note = "longer", "refine", f"no mate within {bound} plies after it"
            self._found(q)
        else:
            q.note = _why_open(r)

    def _defence_kind(self, q: _Question) -> None:
        if len(q.line) < q.remaining:
            q.kind = "variation"
        elif q.length_exact:
            q.kind = "same_length"
        else:
            q.kind = "variation"
            q.note = "as long as the main line unless a shorter mate exists (not proven)"
        q.todo = None if q.length_exact else "refine"

    def _refine(self, q: _Question, cap: int | None) -> None:
        if q.side == "attack":
            r = self._search(q, q.child_sfen, and_root=True, cap=cap)
            if r is not None and r.status == "mate":
                if len(r.moves) + 1 <= len(q.line) or r.min_length_proven:
                    q.line = (q.move, *r.moves)
                    q.length_exact = r.min_length_proven
                    q.kind = self._attack_kind(q)
                if q.length_exact:
                    q.todo = None
            return
        if q.kind == "variation" and q.remaining > 0:
            r = self._search(q, q.child_sfen, and_root=False, cap=cap, max_length=q.remaining - 1)
            if r is not None and r.status == "mate":
                q.line, q.length_exact, q.note = (q.move, *r.moves), r.min_length_proven, None
                self._defence_kind(q)
            return
        # longer: how long it holds out, or whether it escapes altogether
        r = self._search(q, q.child_sfen, and_root=False, cap=cap)
        if r is None:
            return
        if r.status == "nomate":
            q.kind, q.todo, q.note, q.line = "escape", None, None, ()
        elif r.status == "mate":
            q.line, q.length_exact = (q.move, *r.moves), r.min_length_proven
            if q.remaining > 0:
                q.note = None  # the length says it
            if 0 < len(q.line) <= q.remaining:
                # "No mate within the bound" said the bounded search, a line as
                # short says this one: under the composers' count a length
                # depends on the order the futility judgements were made in
                # (docs/FUTILE.md). Neither a flaw nor sound.
                q.kind, q.todo = "disputed", None
                q.note = (
                    f"no mate within {q.remaining - 1} plies after it by a search bounded so,"
                    f" a {len(q.line) - 1}-ply mate by its own"
                )
                self._found(q)
            elif q.length_exact:
                q.todo = None

    def _found(self, q: _Question) -> None:
        if self.on_finding is not None and q.kind not in ("no_mate", "variation", "futile"):
            self.on_finding(self.alternative(q))

    # -- results ------------------------------------------------------------

    def spare(self, number: int, line: Sequence[str]) -> dict[str, int]:
        """The attacker's hand at the end of ``line`` played before main move ``number``."""
        pos = self.positions[number - 1].copy()
        for m in line:
            pos.push_usi(m)
        # The side that made the last move of a mating line is the attacker.
        attacker = 1 - pos.turn
        return {p: n for p, n in pos.hands[attacker].items() if n}

    def alternative(self, q: _Question) -> Alternative:
        """The report's view of a question."""
        spare = self.spare(q.number, q.line) if q.line and q.kind != "futile" else {}
        exact = q.length_exact and q.kind != "futile"
        note = q.note
        if q.todo is not None and q.kind == "undecided" and note is None:
            note = "not searched: the limits were spent"
        if q.kind == "detour" and not q.length_exact:
            note = f"{note}; open: its line is not proven, the defence may avoid that position"
        return Alternative(
            move_number=q.number,
            side=q.side,
            move=q.move,
            kind=q.kind,
            length=q.length,
            length_exact=exact,
            line=q.line,
            spare=spare,
            note=note,
            nodes=q.nodes,
        )


def _why_open(r: MateResult) -> str:
    reason = {"nodes": "node limit", "time": "time limit", "stop": "stopped"}.get(
        r.stop_reason or "", r.stop_reason or r.status
    )
    return f"open: {reason}"


# ---------------------------------------------------------------------------
# The API


def _main_line(text: Sequence[str] | str | None) -> list[str] | None:
    if text is None:
        return None
    if isinstance(text, str):
        return text.split()
    moves = list(text)
    if not all(isinstance(m, str) for m in moves):
        raise TypeError("line must be USI moves (strings)")
    return moves


def _validate_line(start: Position, moves: list[str], attacker: int) -> None:
    """The given line must be legal, check at every attacker move and end on one."""
    pos = start.copy()
    for number, m in enumerate(moves, 1):
        attacking = pos.turn == attacker
        try:
            pos.push_usi(m)
        except ValueError as e:
            raise ValueError(f"the given line: move {number} ({m}) is not legal: {e}") from None
        if attacking and not pos.is_check():
            raise ValueError(f"the given line: move {number} ({m}) does not give check")
    if not moves or pos.turn == attacker:
        raise ValueError("the given line must end with the attacker's mating move")


def check(
    position: Position | str,
    request: SearchRequest | None = None,
    *,
    line: Sequence[str] | str | None = None,
    time_limit_ms: int | None = None,
    nodes_limit: int | None = None,
    hash_mb: int = DEFAULT_HASH_MB,
    solver: Solver | None = None,
    ignore_futile_interpositions: bool = True,
    root_is_and_node_if_checked: bool = False,
    defences: bool = True,
    attacks: bool = True,
    main_search: bool = True,
    main_result: MateResult | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_finding: Callable[[Alternative], None] | None = None,
    exhaustive: bool = True,
    fresh_retries: bool = True,
) -> CheckReport:
    """Check a tsume problem as a composer would before publishing it: a :class:`CheckReport`.

    ``position``: the problem (a :class:`Position`, an SFEN or USI position text); the side to move
    attacks (with ``root_is_and_node_if_checked``, a side to move in check defends). ``line``: the
    intended solution (作意) as USI moves (a list or one string); without it the solver's shortest
    mate (``post_search="MinLength"``) is the main line. The check then tries every other move along
    the main line (see the module documentation) and gives the verdict: sound, cooked at move k,
    unsound defence at move k, undecided, no mate or invalid.

    Limits hold for the whole check: ``time_limit_ms`` and ``nodes_limit`` (None: none; the check
    then runs until every question is settled). ``request``: a :class:`SearchRequest` to take
    those two, ``ignore_futile_interpositions`` and ``root_is_and_node_if_checked`` from (its other
    fields do not apply); a keyword of the four not at its default replaces the request's, and
    every one is validated as a SearchRequest validates it. ``solver``: a Solver to use (its
    table is kept, as across searches); otherwise one of ``hash_mb`` MB is made.
    ``ignore_futile_interpositions`` (default) leaves futile interpositions out as the answer
    does; False counts every reply.
    ``defences=False`` asks only about the attacker's moves (cooks); ``attacks=False`` only about
    the defender's (is the main line's defence the longest? ``scripts.audit_lines`` asks that of
    every engine's answers). ``main_search=False`` with a given ``line``: no search of the problem
    itself (it is there to compare with the given line and to fill the table; ``result`` is then
    None). ``main_result``: the solver's result for ``position`` when the caller already has it (the
    USI engine after ``go mate``), so the main search is not repeated. ``should_stop``: polled
    between searches; when it turns true the check returns what it has (``complete=False``), and a
    stop() of the solver from another thread ends the running search. ``on_finding`` is called with
    each finding (cook, last-move alternative, detour, 変同, longer defence, disputed) as soon as it
    is known. ``exhaustive`` (default) settles every question the limits allow; False stops once
    nothing left open can change the verdict (the first flaw and everything before it are settled).
    ``fresh_retries`` (default) lets a hard question be asked again on a second table as large as
    the solver's, made when first needed (False: one table only, as the USI engine uses it).

    Raises ValueError for a malformed position or a given line that is illegal, gives no check at an
    attacker move or does not end on an attacker move; TypeError for arguments of the wrong type.
    The solver is left idle (not armed) when the check returns.
    """
    # The first statement, while locals() holds the parameters only: they travel on as one
    # value (a parameter missing from _CheckOptions is a TypeError at the first call).
    options = _CheckOptions(
        **{k: v for k, v in locals().items() if k not in ("position", "request")}
    )
    options = _with_request(request, options)
    try:
        return _check(position, options)
    finally:
        if solver is not None:
            solver.disarm()


def check_task(
    solver: Solver, text: str, request: SearchRequest, stopped: Callable[[], bool]
) -> CheckReport | None:
    """A runner task (:data:`usi_mate.runners.Task`): the check of one position.

    ``request`` is the search request of the run (:class:`usi_mate.SearchRequest`):
    the limits hold for the whole check; ``post_search``, ``certify`` and
    ``max_length`` do not apply. None when ``stopped()`` cut the check short.
    """
    report = check(text, request, solver=solver, should_stop=stopped)
    return None if not report.complete and stopped() else report


# The fields of a SearchRequest the check takes (its limits hold for the whole check; the
# other fields do not apply), with check()'s defaults for them.
_REQUEST_FIELDS = {
    "time_limit_ms": None,
    "nodes_limit": None,
    "ignore_futile_interpositions": True,
    "root_is_and_node_if_checked": False,
}


def _with_request(request: SearchRequest | None, o: _CheckOptions) -> _CheckOptions:
    """The check's search fields made by the one maker of requests (settings.search_request):
    ``request`` with the keywords that are not at their default replacing its fields, each
    validated as a SearchRequest validates it."""
    given = {k: getattr(o, k) for k, d in _REQUEST_FIELDS.items() if getattr(o, k) != d}
    if request is None and not given:
        return o
    made = search_request(request, given)  # type: ignore[arg-type]
    return replace(o, **{k: getattr(made, k) for k in _REQUEST_FIELDS})


@dataclass(frozen=True)
class _CheckOptions:
    """The keyword arguments of :func:`check`, as given (see its documentation)."""

    line: Sequence[str] | str | None
    time_limit_ms: int | None
    nodes_limit: int | None
    hash_mb: int
    solver: Solver | None
    ignore_futile_interpositions: bool
    root_is_and_node_if_checked: bool
    defences: bool
    attacks: bool
    main_search: bool
    main_result: MateResult | None
    should_stop: Callable[[], bool] | None
    on_finding: Callable[[Alternative], None] | None
    exhaustive: bool
    fresh_retries: bool


@dataclass
class _Context:
    """What one check works with: the problem, the given line, the budget and the main result."""

    options: _CheckOptions
    start: Position
    sfen: str
    attacker: int
    given: list[str] | None  # the composer's line, validated; None: the solver's
    budget: _Budget
    searcher: _Searcher
    result: MateResult | None  # the main search's, as far as it got

    def report(self, **kw: Any) -> CheckReport:
        """A report of this check: what is known so far, with ``kw`` on top."""
        base = {
            "sfen": self.sfen,
            "main_line": tuple(self.given or ()),
            "main_source": "given" if self.given is not None else "solver",
            "main_exact": self.given is not None,
            "result": self.result,
            "alternatives": (),
            "spare": {},
            "nodes": self.budget.nodes,
            "time_ms": self.budget.elapsed_ms(),
        }
        return CheckReport(**{**base, **kw})


def _check(position: Position | str, o: _CheckOptions) -> CheckReport:
    """The check itself: prepare, search the problem if needed, then walk its main line."""
    ctx = _prepare(position, o)
    if ctx.result is None and (o.main_search or ctx.given is None):
        try:
            _main_search(ctx)
        except CheckStopped:
            return ctx.report(verdict="undecided", reason="stopped", complete=False)
    early = _verdict_without_walk(ctx)
    if early is not None:
        return early
    if ctx.given is not None:
        return _walk(ctx, ctx.given, True)
    assert ctx.result is not None  # _verdict_without_walk answers when there is no result
    return _walk(ctx, list(ctx.result.moves), ctx.result.min_length_proven)


def _prepare(position: Position | str, o: _CheckOptions) -> _Context:
    """Validate the arguments and set up the position, the given line, the budget and searcher."""
    start = position.copy() if isinstance(position, Position) else Position(position)
    sfen = start.sfen()
    attacker = 1 - start.turn if o.root_is_and_node_if_checked and start.is_check() else start.turn
    given = _main_line(o.line)
    if given is not None:
        _validate_line(start, given, attacker)
    budget = _Budget(o.time_limit_ms, o.nodes_limit, o.should_stop)
    solver = o.solver if o.solver is not None else Solver(o.hash_mb)
    searcher = _Searcher(solver, budget, bool(o.ignore_futile_interpositions))
    return _Context(o, start, sfen, attacker, given, budget, searcher, o.main_result)


def _main_search(ctx: _Context) -> None:
    """Search the problem itself into ``ctx.result``; raises CheckStopped on a stop request."""
    o = ctx.options
    # The main search may use half the limits: what it leaves, and the
    # other half, go to the alternatives. A main line not proven
    # shortest still shows cooks at the first move, and a main search
    # that takes everything would leave every alternative open. With
    # no mate found in its half, it goes on (from its table) with all
    # that is left: without a main line there is nothing else to ask.
    share = _Budget(
        o.time_limit_ms // 2 if o.time_limit_ms else None,
        o.nodes_limit // 2 if o.nodes_limit else None,
        o.should_stop,
    )
    half = _Searcher(ctx.searcher.solver, share, ctx.searcher.futile)
    ctx.result = half.solve(ctx.sfen, and_root=o.root_is_and_node_if_checked, cap=None)
    if ctx.result is not None:
        ctx.budget.charge(ctx.result.nodes)
        if ctx.result.status == "unknown" and ctx.result.stop_reason in ("nodes", "time"):
            more = ctx.searcher.solve(ctx.sfen, and_root=o.root_is_and_node_if_checked, cap=None)
            if more is not None:
                ctx.result = more


def _verdict_without_walk(ctx: _Context) -> CheckReport | None:
    """The report when there is no main line to walk (invalid, undecided, no mate), else None."""
    result = ctx.result
    if result is not None and result.status == "invalid":
        return ctx.report(verdict="invalid", reason=result.error)
    if ctx.given is not None:
        return None
    if result is None or result.status == "unknown":
        why = "the main search found no mate within the limits"
        if result is not None and result.error:
            why = result.error
        return ctx.report(verdict="undecided", reason=why)
    if result.status == "nomate":
        return ctx.report(verdict="nomate")
    if not result.moves:
        return ctx.report(verdict="invalid", reason="the side to move is already checkmated")
    return None


def _walk(ctx: _Context, main: list[str], exact: bool) -> CheckReport:
    """Ask every question along the main line the budget allows, and report the verdict."""
    o = ctx.options
    walk = _Check(ctx.start, main, ctx.attacker, ctx.searcher, o.defences, o.on_finding, o.attacks)
    complete = True
    try:
        _run(walk, ctx.budget, exact, o.exhaustive, o.fresh_retries)
    except CheckStopped:
        complete = False
    alternatives = tuple(walk.alternative(q) for q in walk.questions)
    verdict, move, reason = _verdict(alternatives, exact, walk.first_defence)
    return ctx.report(
        main_line=tuple(main),
        main_exact=exact,
        alternatives=alternatives,
        spare=walk.spare(1, main),
        verdict=verdict,
        verdict_move=move,
        reason=reason,
        complete=complete,
    )


def _run(walk: _Check, budget: _Budget, exact: bool, exhaustive: bool, fresh_retries: bool) -> None:
    """The passes: every open question with each cap in turn, until all are settled.

    Not ``exhaustive``: stop as soon as nothing left open can change the verdict.
    ``fresh_retries``: see :data:`FRESH_TABLE_CAP`.
    """
    for cap in PASS_NODE_CAPS:
        retry = fresh_retries and (cap is None or cap >= FRESH_TABLE_CAP)
        # Questions that decide the verdict first, lengths to refine after.
        for todo in ("futility", "decide", "refine"):
            for q in walk.questions:
                if budget.spent():
                    return
                if q.todo == todo:
                    walk.step(q, cap)
                    if retry and q.todo == todo and not budget.spent():
                        walk.searcher.fresh = True
                        try:
                            walk.step(q, cap)
                        finally:
                            walk.searcher.fresh = False
            if not exhaustive and _settled(walk, exact):
                return
        if all(q.todo is None for q in walk.questions):
            return


def _counts(a: Alternative | _Question, exact: bool, first_defence: int) -> bool:
    """Whether a flaw at this alternative's move decides the verdict.

    On a main line not proven shortest, a defender move of the line may not be
    the longest defence, so only flaws before the first defender move count
    (with a given line, or one proven shortest, every flaw counts).
    """
    return exact or _number(a) < first_defence


def _number(a: Alternative | _Question) -> int:
    return a.move_number if isinstance(a, Alternative) else a.number


def _is_open(a: Alternative | _Question) -> bool:
    """Whether a question is still open as far as the verdict goes.

    Undecided and disputed questions are; so is a detour whose line is not
    proven: such a line is only what the table gave, its defence not
    necessarily the longest, and the defender may well avoid the main-line
    position it passes through (then the move would be a cook). Disputed: a
    bounded search and the reply's own disagree, and more search does not
    settle which is right. Other unproven lengths change no verdict:
    a mating attacker move is a cook, or tolerated, whatever its length, and a
    defence mated within a bound is proven so by a search with that bound.
    """
    return a.kind in ("undecided", "disputed") or (a.kind == "detour" and not a.length_exact)


def _settled(walk: _Check, exact: bool) -> bool:
    """True when no open question can change the verdict any more."""
    flaws = [
        q.number
        for q in walk.questions
        if q.kind in FLAWS and _counts(q, exact, walk.first_defence)
    ]
    first = min(flaws) if flaws else len(walk.main) + 2
    return all(
        q.todo is None or (q.todo == "refine" and not _is_open(q))
        for q in walk.questions
        if q.number < first
    )


def _verdict(
    alternatives: tuple[Alternative, ...], exact: bool, first_defence: int
) -> tuple[str, int | None, str | None]:
    flaws = [a for a in alternatives if a.kind in FLAWS and _counts(a, exact, first_defence)]
    if flaws:
        first = min(flaws, key=lambda a: a.move_number)
        return FLAWS[first.kind], first.move_number, None
    if not exact:
        return "undecided", None, "the main line is not proven to be the shortest mate"
    open_questions = [a for a in alternatives if _is_open(a)]
    if open_questions:
        first_move = open_questions[0].move_number
        n = len(open_questions)
        plural = "s" if n > 1 else ""
        return "undecided", None, f"{n} question{plural} open, the first at move {first_move}"
    return "sound", None, None
