# cython: language_level=3, boundscheck=False, wraparound=False
# distutils: language = c++
"""Test hooks of the compiled core: its rules and small structures on their own, and
solves with the search limits that only tests set (csrc/testing.h).

A second extension module, never part of the usi_mate package or its wheel: tests/hooks.py
builds it from this file and csrc/ on first use (setup.py with USI_MATE_TEST_HOOKS=1)
and the tests import it from there. Hands are dicts P L N S B R G; positions are
usi_mate.Position objects (or anything with an ``sfen()``), read here by their SFEN.
"""

from libc.stdint cimport uint64_t
from libcpp.string cimport string
from libcpp.vector cimport vector

from usi_mate._core cimport CPosition

from usi_mate._core import _STATUS, POST_SEARCH_LEVELS


cdef extern from "tt.h" namespace "usi_mate":
    const unsigned short c_BUDGET_NONE "usi_mate::BUDGET_NONE"


cdef extern from "testing.h" namespace "usi_mate::testing":
    bint t_hand_superior_or_equal "usi_mate::testing::hand_superior_or_equal"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_meet "usi_mate::testing::hand_meet"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_join "usi_mate::testing::hand_join"(const vector[int]&, const vector[int]&) except +
    vector[int] t_hand_before "usi_mate::testing::hand_before"(const CPosition&, const string&, const vector[int]&) except +
    vector[int] t_and_proof_hand "usi_mate::testing::and_proof_hand"(const CPosition&, const vector[int]&) except +
    vector[int] t_or_disproof_hand "usi_mate::testing::or_disproof_hand"(const CPosition&, const vector[int]&) except +
    vector[int] t_and_disproof_hand "usi_mate::testing::and_disproof_hand"(const CPosition&, const string&, const vector[int]&) except +

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

    cdef struct TLineSolve "usi_mate::testing::LineSolve":
        int status
        vector[string] pv

    TLineSolve t_solve_with_line_cut "usi_mate::testing::solve_with_line_cut"(const string&, uint64_t, int, uint64_t, uint64_t) except + nogil
    TLineSolve t_solve_with_line_pass "usi_mate::testing::solve_with_line_pass"(const string&, uint64_t, bint, uint64_t) except + nogil

    cdef cppclass TFutility "usi_mate::testing::Futility":
        TFutility() except +
        void put(uint64_t, bint, const vector[int]&) except +
        int get(uint64_t, vector[int]&) except +
        void clear()


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


# The unbounded search's budget (the table's BUDGET_NONE).
BUDGET_NONE = c_BUDGET_NONE


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

    cdef TFutility* _m

    def __cinit__(self):
        self._m = new TFutility()

    def __dealloc__(self):
        del self._m

    def put(self, key, futile, hand):
        """Remember a judgement and the drop's proof hand."""
        self._m.put(key, futile, _hand_counts(hand))

    def get(self, key):
        """(futile: bool, hand) or None when not known."""
        cdef vector[int] hand
        r = self._m.get(key, hand)
        return None if r < 0 else (r == 1, _hand_dict(hand))

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
