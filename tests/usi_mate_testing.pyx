# cython: language_level=3, boundscheck=False, wraparound=False
# distutils: language = c++
"""Test hooks of the compiled core: its rules and small structures on their own, and
solves with the search limits that only tests set (csrc/testing.h).

A second extension module, never part of the usi_mate package or its wheel: tests/hooks.py
builds it from this file and csrc/ on first use (setup.py with USI_MATE_TEST_HOOKS=1)
and the tests import it from there. Hands are dicts P L N S B R G; positions are
usi_mate.Position objects (or anything with an ``sfen()``), read here by their SFEN.
"""

from libc.stdint cimport int64_t, uint64_t
from libcpp.pair cimport pair
from libcpp.string cimport string
from libcpp.vector cimport vector

from usi_mate._core cimport CPosition

from usi_mate._core import _STATUS, _STOP_REASON, POST_SEARCH_LEVELS


cdef extern from "tt.h" namespace "usi_mate":
    const unsigned short c_BUDGET_NONE "usi_mate::BUDGET_NONE"
    const unsigned short c_LEN_INF "usi_mate::LEN_INF"
    const unsigned int c_PN_INF "usi_mate::PN_INF"


cdef extern from "length_bounds.h" namespace "usi_mate":
    cdef cppclass CLengthBounds "usi_mate::LengthBounds":
        unsigned short best
        int lo
        @staticmethod
        CLengthBounds after_mate(unsigned short)
        bint settled()
        int step_down()
        int halfway()
        void mate_found(unsigned short)
        void none_within(int)
        int proven_lower()


cdef extern from "testing.h" namespace "usi_mate::testing":
    bint t_hand_superior_or_equal "usi_mate::testing::hand_superior_or_equal"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_meet "usi_mate::testing::hand_meet"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_join "usi_mate::testing::hand_join"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_before "usi_mate::testing::hand_before"(const CPosition&, const string&, const vector[int]&) except +
    vector[int] t_and_proof_hand "usi_mate::testing::and_proof_hand"(const CPosition&, const vector[int]&) except +
    vector[int] t_or_disproof_hand "usi_mate::testing::or_disproof_hand"(const CPosition&, const vector[int]&) except +
    vector[int] t_and_disproof_hand "usi_mate::testing::and_disproof_hand"(const CPosition&, const string&, const vector[int]&) except +
    vector[pair[int, int]] t_mate_screen "usi_mate::testing::mate_screen"(CPosition&) except +

    cdef struct TProbe "usi_mate::testing::ProbeResult":
        unsigned int pn
        unsigned int dn
        vector[int] hand
        unsigned short mate_len
        unsigned int amount
        bint found

    cdef cppclass TTable "usi_mate::testing::Table":
        TTable(uint64_t mb) except +
        void store(uint64_t, const vector[int]&, unsigned int, unsigned int, unsigned short, unsigned int) except +
        TProbe probe(uint64_t, const vector[int]&, unsigned short, bint) except +
        void new_search()
        void clear()
        int hashfull()

    cdef cppclass TDropsBench "usi_mate::testing::DropsBench":
        TDropsBench(const string&, bint) except +
        vector[string] moves()
        vector[int] delayed()
        int waiting()
        int prove(int) except +
        vector[string] judged_against()

    cdef struct TChoice "usi_mate::testing::ChoiceResult":
        int best
        unsigned int min_v
        unsigned int second
        uint64_t sum
        unsigned int child_th_pn
        unsigned int child_th_dn

    TChoice t_choose_child "usi_mate::testing::choose_child"(const vector[vector[unsigned int]]&, bint, bint, unsigned int, unsigned int, unsigned int) except +

    cdef struct TLineSolve "usi_mate::testing::LineSolve":
        int status
        vector[string] pv

    TLineSolve t_solve_with_line_cut "usi_mate::testing::solve_with_line_cut"(const string&, uint64_t, int, uint64_t, uint64_t) except + nogil
    TLineSolve t_solve_with_line_pass "usi_mate::testing::solve_with_line_pass"(const string&, uint64_t, bint, uint64_t) except + nogil

    cdef struct TSearchedSolve "usi_mate::testing::SearchedSolve":
        int status
        vector[string] pv
        uint64_t nodes
        int min_length
        int min_length_lower
        int root_entry
        vector[int] root_hand
        int root_mate_len

    TSearchedSolve t_solve_by_search "usi_mate::testing::solve_by_search"(const string&, uint64_t, int, uint64_t, bint) except + nogil
    vector[uint64_t] t_yielding_first_proof "usi_mate::testing::yielding_first_proof"(const string&) except +

    cdef cppclass TFutility "usi_mate::testing::Futility":
        TFutility() except +
        void put(uint64_t, int, const vector[int]&, unsigned short) except +
        int get(uint64_t, vector[int]&, unsigned short&) except +
        void clear()

    cdef struct TMemoEntry "usi_mate::testing::MemoEntry":
        bint found
        unsigned short len
        int spare
        unsigned short bound

    cdef cppclass TLineMemos "usi_mate::testing::LineMemos":
        TLineMemos() except +
        void put(uint64_t, unsigned short, int, unsigned short) except +
        TMemoEntry find(uint64_t)
        void clear()
        void clear_times(uint64_t) nogil

    const uint64_t c_kGraceMs "usi_mate::testing::kGraceMs"

    cdef struct TMonitorRun "usi_mate::testing::MonitorRun":
        uint64_t nodes
        uint64_t elapsed_us
        bint stopped

    cdef cppclass TMonitor "usi_mate::testing::Monitor":
        TMonitor() except +
        void start(uint64_t, uint64_t) except +
        bint should_stop(uint64_t)
        bint poll(uint64_t)
        bint exhausted()
        bint caller_budget_spent()
        int reason()
        void set_stop(bint)
        uint64_t caller_node_cap()
        int push_nested(uint64_t, uint64_t) except +
        int push_own(uint64_t, int64_t, bint) except +
        void pop(int)
        int scopes()
        TMonitorRun run(uint64_t, uint64_t, bint, uint64_t) nogil
        void count_ticks(uint64_t)
        uint64_t ticks()
        int64_t caller_deadline_us()
        int64_t answer_deadline_us()
        int64_t start_took_us()

    cdef struct TJudgeAnswer "usi_mate::testing::JudgeAnswer":
        bint futile
        vector[int] hand
        int mate_len
        uint64_t nodes

    cdef cppclass TJudgeBench "usi_mate::testing::JudgeBench":
        TJudgeBench(const string&, uint64_t, uint64_t) except +
        TJudgeAnswer futile_drop(const string&, unsigned short) except +
        TJudgeAnswer futile_among(const string&, const vector[string]&, const vector[int]&) except +
        bint only_futile_evasions() except +
        bint exact()
        uint64_t cut_short()
        uint64_t nodes()
        bint unchanged() except +

    cdef struct TLineRead "usi_mate::testing::LineRead":
        bint ok
        vector[string] line
        int tree_len
        bint cut_short
        unsigned int positions
        uint64_t nodes

    cdef struct TReaderSolve "usi_mate::testing::ReaderSolve":
        int status
        vector[string] pv
        int min_length

    cdef cppclass TReaderBench "usi_mate::testing::ReaderBench":
        TReaderBench(uint64_t) except +
        TReaderSolve solve(const string&, uint64_t, int, bint) except + nogil
        TLineRead read(int, bint, bint, int, uint64_t) except + nogil


cdef extern from "monitor.h" namespace "usi_mate":
    const uint64_t c_kNoLimit "usi_mate::SearchMonitor::kNoLimit"
    const uint64_t c_kCheckInterval "usi_mate::SearchMonitor::kCheckInterval"
    const uint64_t c_kGraceNodes "usi_mate::SearchMonitor::kGraceNodes"
    uint64_t c_search_time_ms "usi_mate::SearchMonitor::search_time_ms"(uint64_t)


cdef extern from "futility.h" namespace "usi_mate":
    const uint64_t c_kFutilityNodeCap "usi_mate::kFutilityNodeCap"
    const uint64_t c_kUncappedNodeCap "usi_mate::kUncappedNodeCap"


cdef extern from "repetition.h" namespace "usi_mate":
    uint64_t c_path_result_key "usi_mate::path_result_key"(uint64_t, uint64_t, uint64_t)

    cdef cppclass CPathSet "usi_mate::PathSet":
        CPathSet() except +
        void clear()
        bint contains(uint64_t)
        void insert(uint64_t)
        void erase(uint64_t)

    cdef cppclass CRepetitionTable "usi_mate::RepetitionTable":
        CRepetitionTable(unsigned int bits) except +
        void clear()
        void insert(uint64_t)
        bint contains(uint64_t)


# The unbounded search's budget (the table's BUDGET_NONE), and the length of no mate.
BUDGET_NONE = c_BUDGET_NONE
LEN_INF = c_LEN_INF
PN_INF = c_PN_INF
# SearchMonitor's constants (csrc/monitor.h).
NO_LIMIT = c_kNoLimit
CHECK_INTERVAL = c_kCheckInterval
GRACE_NODES = c_kGraceNodes
GRACE_MS = c_kGraceMs
# The futility judgements' first-ask cap, and the cap that caps nothing (csrc/futility.h).
FUTILITY_NODE_CAP = c_kFutilityNodeCap
UNCAPPED = c_kUncappedNodeCap


cdef inline string _enc(s):
    return s.encode("ascii") if isinstance(s, str) else bytes(s)


cdef class _Board:
    """This module's copy of a usi_mate.Position (the package's own is another module's
    object), made from its SFEN."""

    cdef CPosition* pos

    def __cinit__(self, position):
        self.pos = new CPosition()
        self.pos.set_sfen(_enc(position.sfen()))

    def __dealloc__(self):
        del self.pos


_HAND_ORDER = "PLNSBRG"


def _hand_counts(hand):
    return [int(hand.get(t, 0)) for t in _HAND_ORDER]


def _hand_dict(counts):
    return dict(zip(_HAND_ORDER, counts))


def _and_node_disproof_hand(position, refutation, child_hand):
    """Disproof hand of the AND node ``position`` (defender to move) refuted by
    ``refutation`` whose child has disproof hand ``child_hand``."""
    cdef _Board board = _Board(position)
    return _hand_dict(t_and_disproof_hand(board.pos[0], _enc(refutation), _hand_counts(child_hand)))


def _mate_screen(position):
    """Each check of the side to move: (screened as a possible mate, mates at once)."""
    cdef _Board board = _Board(position)
    return [(bool(a), bool(b)) for a, b in t_mate_screen(board.pos[0])]


def _hand_superior_or_equal(a, b):
    """True when hand ``a`` holds at least as many of every type as ``b``."""
    return t_hand_superior_or_equal(_hand_counts(a), _hand_counts(b))


def _hand_meet(a, b):
    """Field-wise minimum of two hands."""
    return _hand_dict(t_hand_meet(_hand_counts(a), _hand_counts(b)))


def _hand_join(a, b):
    """Field-wise maximum of two hands."""
    return _hand_dict(t_hand_join(_hand_counts(a), _hand_counts(b)))


def _hand_before(position, move, after):
    """The attacker's hand before ``move`` (played in ``position``), given the hand after it."""
    cdef _Board board = _Board(position)
    return _hand_dict(t_hand_before(board.pos[0], _enc(move), _hand_counts(after)))


def _and_node_proof_hand(position, children_union):
    """Proof hand of the AND node ``position`` from the union of its children's."""
    cdef _Board board = _Board(position)
    return _hand_dict(t_and_proof_hand(board.pos[0], _hand_counts(children_union)))


def _or_node_disproof_hand(position, children_meet):
    """Disproof hand of the OR node ``position`` from the meet of its children's."""
    cdef _Board board = _Board(position)
    return _hand_dict(t_or_disproof_hand(board.pos[0], _hand_counts(children_meet)))


def _path_result_key(ancestors, node, budget_salt=0):
    """The repetition-table key of a path-dependent result (csrc/repetition.h)."""
    return c_path_result_key(ancestors, node, budget_salt)


cdef class _TranspositionTable:
    """The transposition table on its own (csrc/tt.h)."""

    cdef TTable* _t

    def __cinit__(self, mb=1):
        self._t = new TTable(mb)

    def __dealloc__(self):
        del self._t

    def store(self, key, hand, pn, dn, mate_len=0, amount=1):
        """Store an entry: proven (pn 0), disproven (dn 0) or unknown (``mate_len``: its budget)."""
        self._t.store(key, _hand_counts(hand), pn, dn, mate_len, amount)

    def probe(self, key, hand, budget=BUDGET_NONE, own_budget_only=False):
        """(pn, dn, hand, mate_len, amount, found) for ``hand`` in a search of ``budget`` plies.

        ``own_budget_only``: unknown entries count only when stored under ``budget``.
        """
        cdef TProbe r = self._t.probe(key, _hand_counts(hand), budget, own_budget_only)
        return (r.pn, r.dn, _hand_dict(r.hand), r.mate_len, r.amount, r.found)

    def new_search(self):
        """Start a new generation (older entries are replaced first)."""
        self._t.new_search()

    def clear(self):
        """Forget everything."""
        self._t.clear()

    @property
    def hashfull(self):
        """Per mille of used slots (sampled)."""
        return self._t.hashfull()


cdef class _PathSet:
    """The search path's set of full keys (csrc/repetition.h)."""

    cdef CPathSet* _p

    def __cinit__(self):
        self._p = new CPathSet()

    def __dealloc__(self):
        del self._p

    def insert(self, key):
        """Add a key (counted: a key inserted twice needs two erases)."""
        self._p.insert(key)

    def erase(self, key):
        """Remove one count of a key."""
        self._p.erase(key)

    def __contains__(self, key):
        return self._p.contains(key)

    def clear(self):
        """Empty the set."""
        self._p.clear()


cdef class _RepetitionTable:
    """Path-dependent results (csrc/repetition.h)."""

    cdef CRepetitionTable* _r

    def __cinit__(self, bits=10):
        self._r = new CRepetitionTable(bits)

    def __dealloc__(self):
        del self._r

    def insert(self, key):
        """Remember a result key."""
        self._r.insert(key)

    def __contains__(self, key):
        return self._r.contains(key)

    def clear(self):
        """Forget every result (O(1))."""
        self._r.clear()


cdef class _FutilityMemo:
    """The per-solve memo of futility judgements (csrc/futility.h)."""

    CUT_SHORT = 2  # (Judgement kCutShort)

    cdef TFutility* _m

    def __cinit__(self):
        self._m = new TFutility()

    def __dealloc__(self):
        del self._m

    def put(self, key, futile, hand, length=0):
        """Remember a judgement (True, False or ``CUT_SHORT``), the drop's proof hand and
        the length of the mate after the capture."""
        self._m.put(key, int(futile), _hand_counts(hand), length)

    def get(self, key):
        """(futile: bool, hand) or None when not known."""
        judged = self.judgement(key)
        return None if judged is None else (judged[0] == 1, judged[1])

    def judgement(self, key):
        """(judgement: 0 not futile, 1 futile, 2 cut short; hand; length) or None."""
        cdef vector[int] hand
        cdef unsigned short length = 0
        r = self._m.get(key, hand, length)
        return None if r < 0 else (r, _hand_dict(hand), length)

    def clear(self):
        """Forget every judgement (a new generation)."""
        self._m.clear()


def _solve_with_line_cut(sfen, nodes, read_positions, post_search="None", hash_mb=64):
    """A solve (fresh table of ``hash_mb`` MB) whose line reads go on with recorded mate
    lengths after visiting ``read_positions`` positions, as after their deadline (0:
    never): (status, moves). For tests of the line answered when time runs out."""
    cdef string c_sfen = sfen.encode()
    cdef uint64_t c_nodes = nodes, c_cut = read_positions, c_mb = hash_mb
    cdef int c_level = POST_SEARCH_LEVELS.index(post_search)
    cdef TLineSolve r
    with nogil:
        r = t_solve_with_line_cut(c_sfen, c_nodes, c_level, c_cut, c_mb)
    return (_STATUS[r.status], [m.decode() for m in r.pv])


def _yielding_first_proof(sfen):
    """A first proof with the flag "a helper has resolved the root" already set, as
    Solver.prove_root arms it for the first thread (testing.h, yielding_first_proof):
    ((nodes, resolved) at the phase's budget depth, (nodes, proven) one budget deeper)."""
    cdef vector[uint64_t] r = t_yielding_first_proof(sfen.encode())
    return (r[0], bool(r[1])), (r[2], bool(r[3]))


def _solve_by_search(sfen, nodes, post_search="MinLength", hash_mb=16, strict=False):
    """A solve on a fresh table of ``hash_mb`` MB by the search alone, without the
    answers at the root that Solver.solve gives first (no check, mates in one and
    three): (status, moves, nodes, min_length, shortest_possible), 0 for a length not
    proven. ``strict``: every reply counts (ignore_futile_interpositions=False)."""
    cdef string c_sfen = sfen.encode()
    cdef uint64_t c_nodes = nodes, c_mb = hash_mb
    cdef int c_level = POST_SEARCH_LEVELS.index(post_search)
    cdef bint c_strict = strict
    cdef TSearchedSolve r
    with nogil:
        r = t_solve_by_search(c_sfen, c_nodes, c_level, c_mb, c_strict)
    return (_STATUS[r.status], [m.decode() for m in r.pv], r.nodes, r.min_length, r.min_length_lower)


def _root_entry_after_search(sfen, post_search="MinLength", hash_mb=4):
    """What the table holds for the root after a solve by the search alone (a fresh table;
    no mate-in-one answer before it): (status, hand, mate_len) as Solver.probe answers.
    For tests of the proof hands the search stores, on mates in one."""
    cdef string c_sfen = sfen.encode()
    cdef uint64_t c_mb = hash_mb
    cdef int c_level = POST_SEARCH_LEVELS.index(post_search)
    cdef TSearchedSolve r
    with nogil:
        r = t_solve_by_search(c_sfen, 0, c_level, c_mb, False)
    return ({1: "proven", 2: "disproven"}.get(r.root_entry, "unknown"), _hand_dict(r.root_hand), r.root_mate_len)


def _solve_with_line_pass(sfen, nodes, line_pass, hash_mb=64):
    """A MinLength solve (a fresh table of ``hash_mb`` MB) within ``nodes``, with or without
    the search for shorter mates along the line from its end up: (status, moves). For
    tests of that pass."""
    cdef string c_sfen = sfen.encode()
    cdef uint64_t c_nodes = nodes, c_mb = hash_mb
    cdef bint c_pass = line_pass
    cdef TLineSolve r
    with nogil:
        r = t_solve_with_line_pass(c_sfen, c_nodes, c_pass, c_mb)
    return (_STATUS[r.status], [m.decode() for m in r.pv])


cdef class _LineMemoTable:
    """The line reader's memo of lines read (csrc/line_memo.h)."""

    cdef TLineMemos* _t

    def __cinit__(self):
        self._t = new TLineMemos()

    def __dealloc__(self):
        del self._t

    def put(self, key, length, spare, bound=LEN_INF):
        """Remember a line's length, spare pieces and bound under ``key``."""
        self._t.put(key, length, spare, bound)

    def find(self, key):
        """(length, spare, bound) or None when not stored since the last clear."""
        cdef TMemoEntry e = self._t.find(key)
        return (e.len, e.spare, e.bound) if e.found else None

    def clear(self):
        """Forget every line (a new generation)."""
        self._t.clear()

    def clear_times(self, n):
        """``n`` clears in a row (to time one)."""
        cdef uint64_t c_n = n
        with nogil:
            self._t.clear_times(c_n)


cdef class _SearchMonitor:
    """A SearchMonitor (csrc/monitor.h) with a stop flag of its own; scopes pushed are
    kept by index and ended by pop(index), innermost first."""

    cdef TMonitor* _m

    def __cinit__(self):
        self._m = new TMonitor()

    def __dealloc__(self):
        del self._m

    def start(self, nodes=0, time_ms=0):
        """The caller's budget (0: no limit); the stop flag down, earlier scopes ended."""
        self._m.start(nodes, time_ms)

    def should_stop(self, nodes):
        """Whether the innermost budget is spent at ``nodes`` (the clock read every
        CHECK_INTERVAL nodes)."""
        return self._m.should_stop(nodes)

    def poll(self, nodes):
        """should_stop() with the clock read now."""
        return self._m.poll(nodes)

    @property
    def exhausted(self):
        """The innermost budget is spent."""
        return self._m.exhausted()

    @property
    def caller_budget_spent(self):
        """The caller's budget is spent."""
        return self._m.caller_budget_spent()

    @property
    def reason(self):
        """Why the caller's budget ended: None, "nodes", "time" or "stop"."""
        return _STOP_REASON[self._m.reason()]

    @property
    def caller_node_cap(self):
        """The caller's node limit (NO_LIMIT: none)."""
        return self._m.caller_node_cap()

    def set_stop(self, stop=True):
        """Raise (or lower) the stop flag."""
        self._m.set_stop(stop)

    def nested(self, nodes, budget):
        """Push a nested budget: at most ``budget`` more nodes from ``nodes``. Its index."""
        return self._m.push_nested(nodes, budget)

    def own(self, node_cap=0, deadline_ms=None, honors_stop=True):
        """Push an own budget (``node_cap`` 0: none; ``deadline_ms`` from now, None:
        none). Its index."""
        return self._m.push_own(node_cap, -1 if deadline_ms is None else deadline_ms, honors_stop)

    def pop(self, index):
        """End the scopes from ``index`` on (innermost first)."""
        self._m.pop(index)

    @property
    def scopes(self):
        """Scopes pushed and not ended."""
        return self._m.scopes()

    def run(self, start=0, step=1, poll=False, guard_ms=2000):
        """should_stop() (or poll()) at start, start + step, ... until it says stop or
        ``guard_ms`` pass: (nodes, elapsed ms, stopped)."""
        cdef uint64_t c_start = start, c_step = step, c_guard = guard_ms
        cdef bint c_poll = poll
        cdef TMonitorRun r
        with nogil:
            r = self._m.run(c_start, c_step, c_poll, c_guard)
        return (r.nodes, r.elapsed_us / 1000.0, r.stopped)

    def count_ticks(self, interval_ms):
        """Count progress ticks every ``interval_ms`` (see ``ticks``)."""
        self._m.count_ticks(interval_ms)

    @property
    def ticks(self):
        """Ticks counted since start()."""
        return self._m.ticks()

    @property
    def caller_deadline_ms(self):
        """The searches' deadline in ms from (just before) start(); None: none."""
        us = self._m.caller_deadline_us()
        return None if us < 0 else us / 1000.0

    @property
    def answer_deadline_ms(self):
        """The latest a line read may run, in ms from (just before) start(); None: none."""
        us = self._m.answer_deadline_us()
        return None if us < 0 else us / 1000.0

    @property
    def start_took_ms(self):
        """How long start() took: the deadlines' uncertainty."""
        return self._m.start_took_us() / 1000.0


def _search_time_ms(time_ms):
    """The time the searches get under a caller's limit of ``time_ms``
    (SearchMonitor::search_time_ms)."""
    return c_search_time_ms(time_ms)


cdef class _FutilityJudgeBench:
    """A FutilityJudge on a hand-built position (csrc/testing.h, JudgeBench): the AND
    node ``sfen`` (the defender to move, in check) as the root of a composers' count
    solve on a fresh table of ``hash_mb`` MB, its judgements first asked with ``cap``
    nodes (0: FUTILITY_NODE_CAP; UNCAPPED: none, exact)."""

    cdef TJudgeBench* _b

    def __cinit__(self, sfen, cap=0, hash_mb=1):
        self._b = new TJudgeBench(_enc(sfen), cap, hash_mb)

    def __dealloc__(self):
        del self._b

    def futile_drop(self, drop, bound):
        """is_futile_drop: (futile, proof hand, the mate's length after the capture,
        nodes spent)."""
        cdef TJudgeAnswer a = self._b.futile_drop(_enc(drop), bound)
        return (a.futile, _hand_dict(a.hand), a.mate_len, a.nodes)

    def futile_among(self, drop, others):
        """is_futile_among against ``others``, a dict of replies (USI) to their proven
        lengths (each from its child): (futile, proof hand, nodes spent)."""
        cdef vector[string] moves = [_enc(m) for m in others]
        cdef vector[int] lens = [int(n) for n in others.values()]
        cdef TJudgeAnswer a = self._b.futile_among(_enc(drop), moves, lens)
        return (a.futile, _hand_dict(a.hand), a.nodes)

    def only_futile_evasions(self):
        """Every evasion a drop, and every one futile against a mate at once."""
        return self._b.only_futile_evasions()

    @property
    def exact(self):
        """Judgements uncapped, against the other replies' shortest mates."""
        return self._b.exact()

    @property
    def cut_short(self):
        """Judgements cut short at their cap so far."""
        return self._b.cut_short()

    @property
    def nodes(self):
        """Nodes the judgements searched so far."""
        return self._b.nodes()

    @property
    def unchanged(self):
        """The position is the one set up (every judgement undid its moves)."""
        return self._b.unchanged()


cdef class _LineReaderBench:
    """A LineReader over a Solver's table (csrc/testing.h, ReaderBench): solve(), then
    read() from the root as the post-search reads."""

    cdef TReaderBench* _b

    def __cinit__(self, hash_mb=16):
        self._b = new TReaderBench(hash_mb)

    def __dealloc__(self):
        del self._b

    def solve(self, sfen, nodes=1_000_000, post_search="MinLength", ignore_futile=True):
        """A solve on a fresh table (MinLength: until the minimum is proven or
        ``nodes``): (status, moves, proven minimum or 0)."""
        cdef string c_sfen = _enc(sfen)
        cdef uint64_t c_nodes = nodes
        cdef int c_level = POST_SEARCH_LEVELS.index(post_search)
        cdef bint c_futile = ignore_futile
        cdef TReaderSolve r
        with nogil:
            r = self._b.solve(c_sfen, c_nodes, c_level, c_futile)
        return (_STATUS[r.status], [m.decode() for m in r.pv], r.min_length)

    def read(self, budget=None, exact=False, tie_break=True, count="solved", read_positions=0):
        """LineReader::read from the root within ``budget`` plies (None: any).
        ``count``: "solved" (the solve's), "strict" (every reply counted, on the
        solve's entries) or "strict-own" (on the strict count's own entries, the root
        proven again first). After ``read_positions`` positions (0: never) the read
        goes on with recorded lengths. A dict: ok, line, tree_len (None: no bound),
        cut_short, positions, nodes."""
        cdef int c_budget = -1 if budget is None else budget
        cdef bint c_exact = exact, c_tie = tie_break
        cdef int c_count = ("solved", "strict", "strict-own").index(count)
        cdef uint64_t c_cut = read_positions
        cdef TLineRead r
        with nogil:
            r = self._b.read(c_budget, c_exact, c_tie, c_count, c_cut)
        return {
            "ok": r.ok,
            "line": [m.decode() for m in r.line],
            "tree_len": None if r.tree_len >= LEN_INF else r.tree_len,
            "cut_short": r.cut_short,
            "positions": r.positions,
            "nodes": r.nodes,
        }


cdef class _LengthBounds:
    """usi_mate::LengthBounds (csrc/length_bounds.h): the length search's arithmetic."""

    cdef CLengthBounds b

    def __init__(self, int first_len):
        self.b = CLengthBounds.after_mate(first_len)

    @property
    def best(self):
        return self.b.best

    @property
    def lo(self):
        return self.b.lo

    def settled(self):
        return self.b.settled()

    def step_down(self):
        return self.b.step_down()

    def halfway(self):
        return self.b.halfway()

    def mate_found(self, int length):
        self.b.mate_found(length)

    def none_within(self, int budget):
        self.b.none_within(budget)

    def proven_lower(self):
        return self.b.proven_lower()


def _choose_child(children, or_node, tie_last=False, th_pn=None, th_dn=None, eps_shift=2):
    """select_child and child_thresholds (csrc/selection.h) over children given as
    (pn, dn, drop, delayed): a dict of the best index, min and second values, the
    node's other number ("sum": the board moves' sum plus the drops' largest) and the
    best child's thresholds (th_* None: infinite)."""
    cdef vector[vector[unsigned int]] c_children
    cdef vector[unsigned int] row
    cdef unsigned int flag
    for pn, dn, is_drop, delayed in children:
        flag = 1 if is_drop else 0
        row.clear()
        row.push_back(pn)
        row.push_back(dn)
        row.push_back(flag)
        row.push_back(delayed)
        c_children.push_back(row)
    inf = c_PN_INF
    cdef TChoice r = t_choose_child(c_children, or_node, tie_last, inf if th_pn is None else th_pn,
                                    inf if th_dn is None else th_dn, eps_shift)
    return dict(best=r.best, min=r.min_v, second=r.second, sum=r.sum, th_pn=r.child_th_pn, th_dn=r.child_th_dn)


cdef class _DelayedDropsBench:
    """DelayedDrops (csrc/delayed_drops.h) over the evasions of ``sfen`` (in check):
    which replies go in, which are held back, and which stand-by comes in when a drop
    is proven."""

    cdef TDropsBench* _b

    def __cinit__(self, sfen, drops_wait=False):
        self._b = new TDropsBench(_enc(sfen), drops_wait)

    def __dealloc__(self):
        del self._b

    def moves(self):
        return [m.decode() for m in self._b.moves()]

    def delayed(self):
        return list(self._b.delayed())

    def waiting(self):
        return self._b.waiting()

    def prove(self, int i):
        return self._b.prove(i)

    def judged_against(self):
        return [m.decode() for m in self._b.judged_against()]
