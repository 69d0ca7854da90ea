# cython: language_level=3, boundscheck=False, wraparound=False
# distutils: language = c++
"""The compiled core of usi-mate: positions and move generation (and, later, search)."""

from cpython.pythread cimport (
    NOWAIT_LOCK, WAIT_LOCK, PyThread_acquire_lock, PyThread_allocate_lock, PyThread_free_lock,
    PyThread_release_lock, PyThread_type_lock,
)
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from *:
    """
    #include "structmember.h"  /* T_OBJECT_EX */
    /* An instance of a Python class as object.__new__ makes it (its type's tp_alloc:
       zeroed, so every slot unset), without the call through object.__new__. */
    static PyObject* usi_mate_alloc_instance(PyObject* cls) {
        PyTypeObject* type = (PyTypeObject*)cls;
        return type->tp_alloc(type, 0);
    }
    /* Where a __slots__ attribute lives in its instances: the offset its member
       descriptor reads and writes. -1 (TypeError set) for anything else. */
    static Py_ssize_t usi_mate_slot_offset(PyObject* descr) {
        if (Py_TYPE(descr) != &PyMemberDescr_Type ||
            ((PyMemberDescrObject*)descr)->d_member->type != T_OBJECT_EX) {
            PyErr_SetString(PyExc_TypeError, "not an object slot");
            return -1;
        }
        return ((PyMemberDescrObject*)descr)->d_member->offset;
    }
    /* What the slot's descriptor does on assignment, without the attribute lookup
       (the object is new: nothing else can see it yet). */
    static void usi_mate_set_slot(PyObject* obj, Py_ssize_t offset, PyObject* value) {
        PyObject** slot = (PyObject**)((char*)obj + offset);
        Py_INCREF(value);
        Py_XSETREF(*slot, value);
    }
    """
    object _alloc_instance "usi_mate_alloc_instance"(object cls)
    Py_ssize_t _slot_offset "usi_mate_slot_offset"(object descr) except -1
    void _set_slot "usi_mate_set_slot"(object obj, Py_ssize_t offset, object value)

BLACK = 0
WHITE = 1
START_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
# "int128" (GCC, Clang) or "uint64x2" (MSVC, or built with USI_MATE_PORTABLE=1).
BITBOARD = BITBOARD_KIND.decode("ascii")

# Hand piece letters in USI order and the core's piece-type numbers.
_HAND_TYPES = (("R", 6), ("B", 5), ("G", 7), ("S", 4), ("N", 3), ("L", 2), ("P", 1))


cdef inline string _enc(s):
    return s.encode("ascii") if isinstance(s, str) else bytes(s)


def split_position_text(text):
    """Split "startpos|sfen <sfen>|<sfen> [moves m1 m2 ...]" into (sfen, [moves]).

    Accepts what follows ``position`` in the USI command as well as a bare SFEN.
    Raises ValueError for text that is neither.
    """
    if not isinstance(text, str):
        raise TypeError(f"position must be given as a string, not {type(text).__name__}")
    if not text.isascii():
        bad = next(c for c in text if not c.isascii())
        raise ValueError(f"position text must be ASCII (SFEN and USI moves); found {bad!r}")
    if "\x00" in text:
        raise ValueError("position text contains a NUL character")
    tokens = text.split()
    if tokens and tokens[0] == "position":
        tokens = tokens[1:]
    if not tokens:
        raise ValueError("empty position: expected 'startpos', 'sfen <sfen>' or an SFEN")
    if tokens[0] == "startpos":
        sfen, rest = START_SFEN, tokens[1:]
    else:
        if tokens[0] == "sfen":
            tokens = tokens[1:]
        if "moves" in tokens:
            i = tokens.index("moves")
            sfen, rest = " ".join(tokens[:i]), tokens[i:]
        else:
            sfen, rest = " ".join(tokens), []
    if rest and rest[0] != "moves":
        raise ValueError(f"unexpected text after the position: {' '.join(rest)!r}")
    return sfen, rest[1:]


cdef class Position:
    """A shogi position with exact legal move generation.

    ``Position()`` is the start position; ``Position(text)`` accepts a bare SFEN,
    ``"startpos"``, ``"sfen <sfen>"`` and either followed by ``moves m1 m2 ...``.
    Moves are USI strings (``7g7f``, ``8h2b+``, ``G*5b``). Malformed input raises
    ValueError with the reason.
    """

    cdef CPosition* _pos

    def __cinit__(self):
        self._pos = new CPosition()

    def __dealloc__(self):
        del self._pos

    def __init__(self, sfen="startpos"):
        board, moves = split_position_text(sfen)
        self._pos.set_sfen(_enc(board))
        for m in moves:
            try:
                push_usi(self._pos[0], _enc(m))
            except ValueError as e:
                raise ValueError(f"in the moves after the position: {e}") from None

    def copy(self):
        """An independent copy of the current position (without the move history)."""
        return Position(self.sfen())

    def sfen(self):
        """The position as SFEN: board, side to move, hands (R B G S N L P order), move number."""
        return self._pos.sfen().decode()

    def legal_moves(self):
        """All legal moves of the side to move, as USI strings."""
        return [m.decode() for m in legal_moves(self._pos[0])]

    def check_moves(self):
        """The legal moves that give check to the opponent (the attacker's moves in tsume)."""
        return [m.decode() for m in check_moves(self._pos[0])]

    def evasions(self):
        """Every legal reply to a check; an empty list when the side to move is not in check."""
        return [m.decode() for m in evasions(self._pos[0])]

    def push_usi(self, move):
        """Play a legal move given in USI. Raises ValueError if it is malformed or illegal."""
        if not isinstance(move, str):
            raise ValueError(f"a move must be a USI string, not {type(move).__name__}")
        push_usi(self._pos[0], _enc(move))

    def pop(self):
        """Undo the last pushed move and return it. Raises IndexError when there is none."""
        if self._pos.ply_from_root() == 0:
            raise IndexError("pop from a position with no moves played")
        m = last_move_usi(self._pos[0]).decode()
        self._pos.undo_move()
        return m

    def gives_check(self, move):
        """True when the legal USI move gives check. Raises ValueError if it is not legal."""
        return gives_check(self._pos[0], _enc(move))

    def is_legal(self, move):
        """True when the USI string is a legal move here (never raises)."""
        return isinstance(move, str) and move in self.legal_moves()

    def is_check(self):
        """True when the side to move is in check."""
        return self._pos.in_check()

    def is_mate(self):
        """True when the side to move is in check and has no legal move."""
        return is_mate(self._pos[0])

    @property
    def turn(self):
        """The side to move: BLACK (0, sente) or WHITE (1, gote)."""
        return side_to_move(self._pos[0])

    @property
    def hands(self):
        """(black_hand, white_hand), each a dict from piece letter (R B G S N L P) to count."""
        return tuple({k: hand_count_of(self._pos[0], c, t) for k, t in _HAND_TYPES} for c in (0, 1))

    @property
    def key(self):
        """64-bit Zobrist key of the board and side to move, excluding the hands."""
        return self._pos.board_key()

    @property
    def full_key(self):
        """64-bit key including the hands (what repetition detection compares)."""
        return self._pos.full_key()

    @property
    def ply(self):
        """Number of moves pushed since the position was set."""
        return self._pos.ply_from_root()

    def piece_at(self, square):
        """The piece on a USI square ("5e") as "P", "+p", ..., or None when empty."""
        if not (isinstance(square, str) and len(square) == 2 and square[0] in "123456789"
                and square[1] in "abcdefghi"):
            raise ValueError(f"bad square {square!r} (expected e.g. '5e')")
        s = piece_str(self._pos[0], (ord(square[0]) - 49) * 9 + ord(square[1]) - 97).decode()
        return s or None

    def perft(self, int depth):
        """Number of leaf positions depth plies ahead (counted in C++, without the GIL)."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        cdef unsigned long long n
        with nogil:
            n = c_perft(self._pos[0], depth)
        return n

    def __str__(self):
        rows = ["  9  8  7  6  5  4  3  2  1", "+" + "-" * 27 + "+"]
        for r in "abcdefghi":
            cells = []
            for f in "987654321":
                p = self.piece_at(f + r) or "."
                cells.append(p.rjust(3))
            rows.append("|" + "".join(cells) + "| " + r)
        rows.append("+" + "-" * 27 + "+")
        def hand_text(h):
            return " ".join(f"{k}{v if v > 1 else ''}" for k, v in h.items() if v) or "-"
        black, white = self.hands
        rows.append(f"white hand: {hand_text({k.lower(): v for k, v in white.items()})}")
        rows.append(f"black hand: {hand_text(black)}")
        rows.append(f"side to move: {'black' if self.turn == BLACK else 'white'}")
        return "\n".join(rows)

    def __repr__(self):
        return f"Position({self.sfen()!r})"

    # Jupyter shows the richest of these it gets (HTML before SVG): the board drawn by
    # usi_mate.board (cshogi's SVG), the last pushed move marked; without cshogi the
    # HTML is the text board with a note and _repr_svg_ gives None (not available).
    cdef _last_pushed(self):
        return last_move_usi(self._pos[0]).decode() if self._pos.ply_from_root() else None

    def _repr_svg_(self):
        from usi_mate import board
        return board.svg(self, move=self._last_pushed()) if board.available() else None

    def _repr_html_(self):
        from usi_mate import board
        return board.html(self, move=self._last_pushed())


# ---------------------------------------------------------------------------
# Mate search

import os
import threading

import usi_mate.types
from usi_mate.types import _RESULT_FIELDS, Certification, MateResult, RefineStats, SearchProgress

# Where each field of a MateResult lives (its slots, usi_mate.types): the core writes its
# results there directly, by name (_fill, for _mate_result), and an unpickled result's
# values in field order (_mate_result_of_values).
cdef Py_ssize_t _N_FIELDS = len(_RESULT_FIELDS)
cdef vector[Py_ssize_t] _FIELD_OFFSETS  # in field order
cdef dict _OFFSET_OF = {}  # field name -> offset
for _name in _RESULT_FIELDS:
    _FIELD_OFFSETS.push_back(_slot_offset(MateResult.__dict__[_name]))
    _OFFSET_OF[_name] = _FIELD_OFFSETS.back()
del _name
# The names _fill was last given, in their order, and their offsets: a call with the same
# names (the one builder's constants) finds its offsets by identity, without a lookup.
cdef list _FILL_NAMES = [None] * _N_FIELDS
cdef vector[Py_ssize_t] _FILL_OFFSETS = _FIELD_OFFSETS


cdef object _fill(tuple pairs):
    """The MateResult of ``pairs`` (name, value, name, value, ...: every field, in any
    order), its slots written directly: without the frozen dataclass's __init__ (a
    setattr a field). A name that is no field raises KeyError."""
    if len(pairs) != 2 * _N_FIELDS:
        raise TypeError(f"a MateResult has {_N_FIELDS} fields, not {len(pairs) // 2}")
    result = _alloc_instance(MateResult)
    cdef Py_ssize_t k
    for k in range(_N_FIELDS):
        name = pairs[2 * k]
        if name is not _FILL_NAMES[k]:
            _FILL_OFFSETS[k] = _OFFSET_OF[name]
            _FILL_NAMES[k] = name
        _set_slot(result, _FILL_OFFSETS[k], pairs[2 * k + 1])
    return result


cdef object _new_result(tuple values):
    """The MateResult whose fields are ``values`` (every field, in order), its slots
    written directly."""
    result = _alloc_instance(MateResult)
    cdef Py_ssize_t k
    for k in range(_N_FIELDS):
        _set_slot(result, _FIELD_OFFSETS[k], values[k])
    return result


def _mate_result_of_values(tuple values):
    """usi_mate.types._mate_result_of_values in C (unpickling a worker's result)."""
    if len(values) != _N_FIELDS:
        raise TypeError(f"a MateResult has {_N_FIELDS} fields, not {len(values)}")
    return _new_result(values)


usi_mate.types._mate_result_of_values = _mate_result_of_values

# The core's constants, defined once in csrc/ and read from there (usi_mate.settings and
# the rest of the package import them from here).
# MinLength's default share of work (times the first proof's nodes) and its floor in nodes.
DEFAULT_MIN_LENGTH_EFFORT = kDefaultMinLengthEffort
MIN_LENGTH_MIN_NODES = kMinLengthMinNodes


def min_length_share(first_nodes, effort=DEFAULT_MIN_LENGTH_EFFORT):
    """MinLength's share of work in nodes after a first proof of ``first_nodes``
    nodes, as the core prices it: ``effort`` times the first proof's nodes, its
    first 2 M counted 3/4 each and the rest 1/4, at least MIN_LENGTH_MIN_NODES; 0
    when effort is 0."""
    return min_length_share_c(first_nodes, effort)

# Positions a disproof tree may hold (walked plus re-searched nodes) before
# certification gives up as "incomplete".
DEFAULT_CERTIFY_NODES = kDefaultCertifyNodes
# The table of a Solver when none is asked for, in MB.
DEFAULT_HASH_MB = kDefaultHashMb
# Paths are cut at this many plies: a mate is at most MAX_PLY - 1 plies long.
MAX_PLY = kMaxPly
# PostSearchLevel names (as KomoringHeights spells them), in the order of the core's values.
POST_SEARCH_LEVELS = tuple(kPostSearchLevelNames[i].decode("ascii") for i in range(kPostSearchLevelCount))
# The node cap of the first ask of every futility judgement (SearchRequest.futility_node_cap).
FUTILITY_NODE_CAP = kFutilityNodeCap
# The cap that caps nothing (every judgement settled), and the first proofs (or
# max_length) this short whose judgements are all uncapped.
UNCAPPED_FUTILITY_NODE_CAP = kUncappedNodeCap
UNCAPPED_MAX_LENGTH = kUncappedMaxLength
# Search threads get a large stack: the search recurses once per ply (up to
# MAX_PLY), and some platforms give new threads only 512 KB to 1 MB. The core's
# own helper threads get the same (csrc/search_thread.h).
SEARCH_THREAD_STACK = kSearchThreadStack

# The core's MateStatus and StopReason (why a search ended without a verdict), by value
# (the test hooks read them too; the cdef copies are what results are built from).
_STATUS = ("unknown", "mate", "nomate", "invalid")
_STOP_REASON = (None, "nodes", "time", "stop", "depth", "length", "line", "effort")
cdef tuple _STATUS_NAMES = _STATUS
cdef tuple _STOP_REASON_NAMES = _STOP_REASON

cdef object _settings_module = None


cdef object _settings():
    """usi_mate.settings (SearchRequest, the checks of arguments), imported on first use:
    it imports this module's constants, so this module cannot import it while loading."""
    global _settings_module
    if _settings_module is None:
        from usi_mate import settings
        _settings_module = settings
    return _settings_module


cdef SearchLimits _search_limits(request) except *:
    """The one place a SearchRequest (validated when it was made) becomes the core's limits."""
    cdef SearchLimits limits
    limits.time_limit_ms = request.time_limit_ms or 0
    limits.nodes_limit = request.nodes_limit or 0
    limits.max_length = request.max_length or 0
    limits.post_search = <PostSearchLevel_c><int>POST_SEARCH_LEVELS.index(request.post_search)
    limits.min_length_effort = request.min_length_effort
    limits.ignore_futile_interpositions = request.ignore_futile_interpositions
    limits.root_is_and_node_if_checked = request.root_is_and_node_if_checked
    limits.certify_nodes = (request.certify_nodes or 0) if request.certify else 0
    limits.futility_node_cap = request.futility_node_cap or 0
    return limits


_stack_lock = threading.Lock()

# A search within this many nodes runs on the calling thread, also the main one:
# handing it to the search thread cost more than the search itself (docs/BENCHMARKS.md,
# "What a call's path costs"), and Ctrl-C then waits for at most these nodes (a tenth
# of a second) before it is raised.
_INLINE_NODES = 200_000
# ...where the calling thread's stack holds the deepest search (4000 plies,
# under 6 MB: tests/test_usi_process.py runs 271 plies in 384 KB). POSIX main
# threads grow to RLIMIT_STACK (8 MB by default); Windows' get 1 MB.
_INLINE_STACK = 8 << 20


def _main_stack_holds_a_search():
    """Whether the main thread's stack may grow to _INLINE_STACK (POSIX only)."""
    try:
        import resource
    except ImportError:
        return False
    soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    return soft == resource.RLIM_INFINITY or soft >= _INLINE_STACK


_MAIN_STACK_HOLDS_A_SEARCH = _main_stack_holds_a_search()


def start_search_thread(target, args=(), name="usi-mate-search", daemon=True):
    """Start a thread for searches, with a stack large enough for the deepest ones."""
    with _stack_lock:
        old = threading.stack_size()
        try:
            threading.stack_size(SEARCH_THREAD_STACK)
        except (ValueError, RuntimeError):
            pass  # a platform without settable stacks keeps its default
        try:
            thread = threading.Thread(target=target, args=args, name=name, daemon=daemon)
            thread.start()
        finally:
            threading.stack_size(old)
    return thread


class _SearchWorker:
    """One search thread, started once, that runs the main thread's searches.

    A thread started per search cost more than the whole search of a mate-in-3 problem
    (thread start and join, the handoffs of the GIL; docs/BENCHMARKS.md, "What a call's
    path costs"). The main thread alone uses it, one search at a time, so one worker a
    process is enough.
    """

    def __init__(self):
        self._cv = threading.Condition()
        self._job = None
        self._outcome = None  # (result, exception) of the finished job, until taken
        self._busy = False  # a run() is waiting on a job (only the main thread submits)
        start_search_thread(self._serve, name="usi-mate-solve")

    def _serve(self):
        while True:
            with self._cv:
                while self._job is None:
                    self._cv.wait()
                job, self._job = self._job, None
            try:
                outcome = (job(), None)
            except BaseException as e:  # handed to the waiting thread
                outcome = (None, e)
            job = None  # (the job holds its Solver: not while idle)
            with self._cv:
                self._outcome = outcome
                self._cv.notify_all()
            outcome = None

    def run(self, job, stop):
        """Run ``job`` on the search thread and return its result (or raise its
        exception). On KeyboardInterrupt (or any exception) while waiting: ``stop()``,
        wait until the job has returned, then re-raise. Never Thread.join: on Python
        3.11 a join interrupted by Ctrl-C marks the still-running thread as finished
        (threading.py, bpo-45274), and a second join then returns at once, so the next
        solve() ran beside the stopping one on the same core solver and crashed.
        """
        with self._cv:
            reentered = self._busy
            if not reentered:
                self._busy = True
                self._job = job
                self._cv.notify_all()
        if reentered:
            # Re-entered while waiting (a signal handler that searches): search here.
            return job()
        try:
            self._wait()
        except BaseException:
            stop()
            # A second Ctrl-C while the search stops (within milliseconds) is not let
            # through: the caller could otherwise start the next search on the same
            # solver before this one ends.
            while True:
                try:
                    self._wait()
                    break
                except BaseException:
                    continue
            self._take()
            raise
        result, error = self._take()
        if error is not None:
            raise error
        return result

    def _wait(self):
        with self._cv:
            while self._outcome is None:
                self._cv.wait(0.05)  # a timeout: Ctrl-C is seen within 50 ms on every platform

    def _take(self):
        with self._cv:
            outcome, self._outcome, self._busy = self._outcome, None, False
        return outcome


_main_worker = None


def _forget_main_worker():
    # A forked child has no threads but the one that forked: a worker inherited
    # from the parent would never answer.
    global _main_worker
    _main_worker = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_main_worker)


def _main_thread_searcher():
    global _main_worker
    if _main_worker is None:
        _main_worker = _SearchWorker()
    return _main_worker


cdef void _progress_trampoline(void* ctx, const SearchProgress_c& p) noexcept with gil:
    solver = <Solver>ctx
    cb = solver._on_progress
    if cb is None:
        return
    try:
        cb(SearchProgress(nodes=p.nodes, time_ms=p.time_ms, hashfull=p.hashfull,
                          proof_number=p.proof_number, disproof_number=p.disproof_number,
                          max_ply=p.max_ply,
                          mate_length=p.mate_length or None,
                          shortest_possible=p.shortest_possible or None,
                          moves=tuple(_usi_moves(p.moves[0])) if p.moves != NULL else None))
    except BaseException as e:  # never let a callback error unwind through C++
        solver._callback_error = e
        solver._solver.stop()


cdef inline bint _is_bare_sfen(str text):
    """Whether ``text`` is an SFEN alone (no ``startpos``, ``sfen`` or ``position``
    prefix, no ``moves``), in ASCII without NUL: what the core reads itself. Other text
    goes through :func:`split_position_text`, whose messages name what is wrong (the
    core's would quote a byte of a multi-byte character, or stop at the NUL)."""
    return (text.isascii() and not text.startswith(("startpos", "sfen", "position"))
            and "moves" not in text and "\x00" not in text)


cdef list _core_texts(positions):
    """What search_many() hands the core: the SFEN of each position, or why it is no
    position (its ValueError or TypeError, answered "invalid" without a search)."""
    cdef list texts = []
    for position in positions:
        if type(position) is str and _is_bare_sfen(position):
            texts.append(position)
            continue
        try:
            texts.append(_position_sfen(position))
        except (ValueError, TypeError) as e:
            texts.append(e)
    return texts


def _position_sfen(position):
    """The SFEN a search starts from; ValueError/TypeError for what is not a position."""
    if isinstance(position, Position):
        return position.sfen()
    if not isinstance(position, str):
        raise TypeError(f"position must be a Position or position text, not {type(position).__name__}")
    return Position(position).sfen()


cdef list _usi_moves(const vector[Move]& moves):
    """The core's moves in USI."""
    cdef list out = []
    cdef size_t k
    for k in range(moves.size()):
        out.append(move_to_usi(moves[k]).decode("ascii"))
    return out


cdef object _mate_result(SearchResult& r, str sfen, bint certify, bint root_is_and_node_if_checked):
    """The MateResult of the core's result: the one conversion, for search(),
    search_many() and solve() alike. Every field by name, once (_fill), so that a field of
    the result is added in four places: SearchResult (csrc/search_types.h), its
    declaration in _core.pxd, here, and MateResult (usi_mate/types.py). With ``certify``,
    a "no mate"'s disproof tree is replayed into its ``certification``."""
    cdef int status = <int>r.status
    cdef RefineStats_c* walk = &r.refine
    return _fill((
        "status", _STATUS_NAMES[status],
        "moves", _usi_moves(r.moves),
        "nodes", r.nodes,
        "time_ms", r.time_ms,
        "hashfull", r.hashfull,
        "error", r.error.decode("utf-8", "backslashreplace") if r.error.size() else None,
        "certification", _certification(sfen, r.certificate, root_is_and_node_if_checked)
        if certify and status == 2 else None,
        "stop_reason", _STOP_REASON_NAMES[<int>r.stop_reason],
        "line_nodes", r.line_nodes,
        "min_length", r.min_length if r.min_length else None,
        "shortest_possible", r.shortest_possible if r.shortest_possible else None,
        "length_stop", _STOP_REASON_NAMES[<int>r.length_stop],
        "refine", RefineStats(walk.positions, walk.nodes, walk.passes, walk.tiny_nodes, walk.reprove_nodes,
                              walk.judge_nodes, walk.along_nodes)
        if walk.positions or walk.nodes or walk.passes else None,
    ))


# The builder fills every field: checked on the core's empty result at import, so that a
# field added to MateResult and not to _mate_result fails the import, not a result.
cdef SearchResult _empty_result
try:
    usi_mate.types._field_values(_mate_result(_empty_result, "", False, False))
except (AttributeError, TypeError, KeyError) as _unfilled:
    raise ImportError(f"usi_mate._core does not fill the MateResult fields {_RESULT_FIELDS} ({_unfilled!r})") from None


cdef object _certification(str sfen, DisproofCertificate& c, bint root_is_and_node_if_checked):
    """Checks the core's disproof tree with usi_mate.certify (no table involved)."""
    from usi_mate.certify import canonical_sfen, verify_no_mate

    if c.status == 0:  # (certify_nodes 0: nothing was built, so nothing is refuted either)
        return Certification("incomplete", c.nodes, "", "no disproof tree was built (certify_nodes is 0)")
    if c.status == 2:
        return Certification("incomplete", c.nodes, "",
                             "the disproof tree did not fit in certify_nodes (or the search was stopped)")
    if c.status != 1:
        path = " ".join(_usi_moves(c.failed_path))
        return Certification("refuted", c.nodes, "",
                             f"no refutation found for {c.failed_at.decode()} (reached by {path or 'no move'})")
    refutations = {canonical_sfen(a.decode()): move_to_usi(b).decode() for a, b in c.refutations}
    and_root = root_is_and_node_if_checked and Position(sfen).is_check()
    return verify_no_mate(sfen, refutations, and_root=and_root)


cdef class _Found:
    """A search's SearchResult, handed from the thread that searched to the caller's."""
    cdef SearchResult r


cdef class Solver:
    """A reusable df-pn mate solver that keeps its transposition table between searches.

    ``Solver(hash_mb=DEFAULT_HASH_MB)`` (256) allocates the table. ``solve()`` blocks until the
    search ends, without holding the GIL; ``stop()`` may be called from any other
    thread and makes ``solve()`` return promptly with what it has.

    ``threads`` search threads work on each problem, sharing the table
    (docs/THREADS.md); the answer is the first thread's, so verdicts never
    depend on the count, and a node limit counts the first thread's nodes.
    """

    cdef CSolver* _solver
    cdef PyThread_type_lock _state_lock
    cdef object _state  # "idle", "armed" or "running"
    cdef public object _on_progress
    cdef public object _callback_error
    cdef uint64_t _hash_mb
    # The core's limits of the last request seen (requests are frozen): a bulk caller
    # sends one request with every position, and reading its fields again cost each call.
    cdef object _limits_of
    cdef SearchLimits _limits

    def __cinit__(self, hash_mb=DEFAULT_HASH_MB, threads=1):
        self._solver = NULL
        self._state_lock = PyThread_allocate_lock()
        if self._state_lock == NULL:
            raise MemoryError("cannot allocate a lock")

    cdef inline void _hold(self) noexcept:
        # The state's lock: a C lock, cheaper than a threading.Lock's `with` on every
        # call (docs/BENCHMARKS.md, "The cost of a call"). Taken at once when free; else waited for
        # without the GIL, which its holder may need to let it go.
        if not PyThread_acquire_lock(self._state_lock, NOWAIT_LOCK):
            with nogil:
                PyThread_acquire_lock(self._state_lock, WAIT_LOCK)

    cdef inline void _let_go(self) noexcept:
        PyThread_release_lock(self._state_lock)

    def __init__(self, hash_mb=DEFAULT_HASH_MB, threads=1):
        self._hash_mb = self._validate_hash(hash_mb)
        count = _settings().check_threads(threads)
        self._solver = new CSolver(self._hash_mb)
        self._solver.set_threads(count)
        self._state = "idle"
        self._on_progress = None
        self._callback_error = None

    def __dealloc__(self):
        if self._solver != NULL:
            del self._solver
        if self._state_lock != NULL:
            PyThread_free_lock(self._state_lock)

    @staticmethod
    def _validate_hash(hash_mb):
        return _settings().check_hash_mb(hash_mb)

    @property
    def hash_mb(self):
        """Size of the transposition table in MB."""
        return self._hash_mb

    @property
    def threads(self):
        """Search threads for each problem (see set_threads())."""
        return self._solver.threads()

    def set_threads(self, threads):
        """Search each problem with ``threads`` threads (1..256), sharing the table."""
        count = _settings().check_threads(threads)
        self._hold()
        try:
            if self._state != "idle":
                raise RuntimeError("cannot change the thread count while a search runs")
            self._solver.set_threads(count)
        finally:
            self._let_go()

    @property
    def hashfull(self):
        """Per mille of the transposition table in use (sampled)."""
        return self._solver.hashfull()

    @property
    def state(self):
        """"idle", "armed" (see arm()) or "running"."""
        return self._state

    def resize(self, hash_mb):
        """Reallocate the table with a new size (clears it, as clear() does)."""
        size = self._validate_hash(hash_mb)
        self._hold()
        try:
            if self._state != "idle":
                raise RuntimeError("cannot resize the table while a search runs")
            self._solver.resize(size)
            self._hash_mb = size
        finally:
            self._let_go()

    def clear(self):
        """Forget everything the table has learnt: the next solve() searches exactly as a
        new Solver's would (with one thread: the same nodes and the same line)."""
        self._hold()
        try:
            if self._state != "idle":
                raise RuntimeError("cannot clear the table while a search runs")
            self._solver.clear()
        finally:
            self._let_go()

    def arm(self):
        """Prepare the next solve(): a stop() from now on stops it, even before it starts.

        Protocol layers call this in the thread that reads commands before they
        start the search thread, so that a stop arriving in between is not lost.
        The next solve() (whatever its outcome, an exception included) disarms it.
        """
        self._hold()
        try:
            if self._state != "idle":
                raise RuntimeError("a search is already running")
            self._solver.reset_stop()
            self._state = "armed"
        finally:
            self._let_go()

    def disarm(self):
        """Undo arm() when no solve() follows (a no-op unless armed)."""
        self._hold()
        try:
            if self._state == "armed":
                self._state = "idle"
        finally:
            self._let_go()

    cdef int _start_running(self) except -1:
        """Mark the Solver running (RuntimeError when it already is); a stop() from now on
        is seen, and one since arm() is kept."""
        self._hold()
        try:
            if self._state == "running":
                raise RuntimeError("this Solver is already searching (use one Solver per thread)")
            if self._state == "idle":
                self._solver.reset_stop()
            self._state = "running"
        finally:
            self._let_go()
        return 0

    cdef void _end_running(self) noexcept:
        """Back to idle after a search, whatever its outcome."""
        self._hold()
        self._state = "idle"
        self._let_go()

    def stop(self):
        """Ask a running (or armed) search to stop; safe from any thread, a no-op when idle."""
        self._hold()
        try:
            if self._state != "idle":
                self._solver.stop()
        finally:
            self._let_go()

    def probe(self, position, *, root_is_and_node=False):
        """What the table knows of a position: ("proven"|"disproven"|"unknown", hand, mate_len).

        For a proven position the hand is its proof hand (the attacker pieces the
        mate needs), for a disproven one its disproof hand; a dict P L N S B R G.
        Meant for tests and tools; searching fills the table (a root with a mate in one,
        or without any check, is answered before any search and leaves nothing in it).
        """
        if not isinstance(position, Position):
            position = Position(position)
        cdef ProbeOutput out = c_probe(self._solver[0], position.sfen().encode(), bool(root_is_and_node))
        hand = dict(zip("PLNSBRG", out.hand))
        return ({1: "proven", 2: "disproven"}.get(out.status, "unknown"), hand, out.mate_len)

    def solve(self, position, request=None, *, on_progress=None, progress_interval_ms=200,
              **options):
        """Search for a mate in ``position`` (a Position, SFEN, or "startpos/sfen ... moves ...").

        ``request`` (a :class:`usi_mate.SearchRequest`; None: the defaults) with the
        fields the other keywords name replaced (``options``: any of
        :class:`usi_mate.settings.SearchOptions`, validated once by
        :func:`usi_mate.settings.search_request`) is what :meth:`search` runs:
        ``solver.solve(p, nodes_limit=n)`` is ``solver.search(p, SearchRequest(nodes_limit=n))``.

        The side to move is the attacker; with ``root_is_and_node_if_checked`` a
        side to move that is in check is the defender instead. Returns a
        MateResult. Raises ValueError for malformed position text (the message
        says why) and for bad arguments, TypeError for arguments of the wrong
        type. A position that parses but cannot be searched (no defender king,
        the side not to move in check) gives status "invalid" with ``error``.

        ``time_limit_ms`` and ``nodes_limit`` (None: no limit) end the search
        with status "unknown" and ``stop_reason`` "time" or "nodes". The answer
        comes within the time limit: the searches stop 5% plus 20 ms before it,
        which the line of a proven mate may use to be rebuilt. A node limit
        holds within a few percent (the line may overrun it by 5%).
        ``max_length``: only mates of at most this many plies count ("unknown"
        with stop_reason "length" when there is none that short).

        ``post_search`` says what happens after the first proof: "None" reports
        it as it is, "UpperBound" a line as long as its proven bound, and
        "MinLength" (default) looks for shorter mates (a walk over the proven
        tree, then bounded searches from the root) until the shortest is
        proven or it has spent its share of work, ``min_length_effort`` times
        the first proof's nodes (priced by ``_core.min_length_share``; with
        ``time_limit_ms`` and no ``nodes_limit`` it may also run on to a quarter of
        the time, at most 2 s; 0: no share, until proven or a limit): the answer then is final,
        whatever the limits allow. The
        result says which: ``min_length`` (proven), else ``shortest_possible``
        (the proven lower bound) and ``length_stop`` (why the search for a
        shorter mate ended: "effort", or the limit or stop() that came first).

        With ``ignore_futile_interpositions`` (default) the shortest-mate search
        does not count futile interpositions (無駄合, docs/FUTILE.md) as
        resistance, as problem composers do; False counts every legal reply.

        With ``certify``, a "no mate" is checked independently of the search:
        the core rebuilds an explicit disproof tree (at most ``certify_nodes``
        positions walked and re-searched) and :mod:`usi_mate.certify` replays
        it without the table; the result's ``certification`` says whether it
        held (see :class:`Certification`).

        ``futility_node_cap`` is a diagnostic (see :class:`usi_mate.SearchRequest`).

        In the main thread the search runs on a search thread (started once and
        reused) so that Ctrl-C (KeyboardInterrupt) stops it and is raised here; a
        search within 200,000 nodes (``nodes_limit``) runs on the calling thread
        itself where its stack allows (POSIX), since the hand-off would cost more
        than the search, and Ctrl-C is raised when it returns.
        """
        # A solve() ends an arm(), whatever happens: validate, then search.
        try:
            request = _settings().search_request(request, options)
        except BaseException:
            self.disarm()
            raise
        return self.search(position, request, on_progress=on_progress,
                           progress_interval_ms=progress_interval_ms)

    def search(self, position, request, *, on_progress=None, progress_interval_ms=200):
        """Search ``position`` as ``request`` (a :class:`usi_mate.SearchRequest`) asks.

        What :meth:`solve` does with the request its keywords make; the request
        travels unchanged from whoever made it (the USI engine, ``usi-mate solve``,
        :func:`usi_mate.solve_many`) to here, where the core's limits are read from
        it. ``on_progress`` (called with a :class:`SearchProgress` every
        ``progress_interval_ms`` milliseconds; 0: as often as the core reports)
        is how this call reports, not part of what it asks. Returns a MateResult;
        raises as :meth:`solve` does (TypeError when ``request`` is no SearchRequest).
        """
        cdef _Found found
        # A search() ends an arm(), whatever happens: validate, then search.
        try:
            settings = _settings()
            if not isinstance(request, settings.SearchRequest):
                raise TypeError(f"request must be a SearchRequest, not {type(request).__name__}")
            if on_progress is not None and not callable(on_progress):
                raise TypeError("on_progress must be callable")
            # A bare SFEN goes to the core as it is (reading it here first cost a
            # mate-in-3 call a fifth of its time); one the core cannot read is read
            # again below for the reason (ValueError).
            bare = isinstance(position, str) and _is_bare_sfen(position)
            sfen = position if bare else _position_sfen(position)
            interval = progress_interval_ms
            if type(interval) is not int or not 0 <= interval <= settings.MAX_TIME_MS:
                interval = settings.check_int("progress_interval_ms", interval, 0, settings.MAX_TIME_MS) or 0
        except BaseException:
            self.disarm()
            raise
        self._start_running()
        try:
            self._on_progress = on_progress
            self._callback_error = None
            if on_progress is not None:
                self._solver.set_progress(_progress_trampoline, <void*>self, interval)
            else:
                self._solver.set_progress(NULL, NULL, 0)
            short = (request.nodes_limit is not None and request.nodes_limit <= _INLINE_NODES
                     and _MAIN_STACK_HOLDS_A_SEARCH)
            if not short and threading.current_thread() is threading.main_thread():
                out = self._solve_interruptible(sfen, request)
            else:
                out = self._solve_native(sfen, request)
        finally:
            self._solver.set_progress(NULL, NULL, 0)
            self._on_progress = None
            self._end_running()
        if self._callback_error is not None:
            err, self._callback_error = self._callback_error, None
            raise err
        found = out
        if bare and <int>found.r.status == 3:
            Position(sfen)  # malformed text raises ValueError (else: a position that cannot be searched)
        return _mate_result(found.r, sfen, request.certify, request.root_is_and_node_if_checked)

    def search_many(self, positions, request):
        """Search each of ``positions`` as ``request`` asks, one after another in one call
        into the core: a list of MateResult in their order.

        For many small searches (a bulk screen of positions, most of them answered in
        microseconds), where a call of :meth:`search` each would cost more than the
        searches. The positions are SFEN text (or anything :meth:`search` takes); the
        request is one :class:`usi_mate.SearchRequest` for all. Unlike :meth:`search`,
        text that is no position (or an item that is no text, such as None) does not
        raise: its result is "invalid" with the reason in ``error``, so one bad item does
        not lose the others. No progress reports.
        ``stop()`` (from another thread) ends the search running and the ones not
        started answer "unknown" with stop_reason "stop". Called from the main thread,
        the searches run on the search thread so that Ctrl-C stops them and is raised
        here, as with :meth:`search`.
        """
        settings = _settings()
        if not isinstance(request, settings.SearchRequest):
            self.disarm()
            raise TypeError(f"request must be a SearchRequest, not {type(request).__name__}")
        cdef list texts
        try:
            texts = _core_texts(positions)
        except BaseException:
            self.disarm()
            raise
        self._start_running()
        try:
            self._solver.set_progress(NULL, NULL, 0)
            if threading.current_thread() is threading.main_thread():
                return _main_thread_searcher().run(lambda: self._search_many_native(texts, request),
                                                   self.stop)
            return self._search_many_native(texts, request)
        finally:
            self._end_running()

    def _search_run(self, list texts, request, uintptr_t searching, list labels):
        """search_many() in a worker process, on the calling thread: ``texts`` are SFEN
        text, and before the search of ``texts[k]`` the core writes ``labels[k]`` into
        the signed 64-bit integer at address ``searching`` (shared memory its
        supervisor reads when the process dies: the problem it was on)."""
        texts = _core_texts(texts)  # (the same reading as search_many's: raw text may come)
        self._start_running()
        try:
            self._solver.set_progress(NULL, NULL, 0)
            return self._search_many_native(texts, request, searching, labels)
        finally:
            self._end_running()

    cdef SearchLimits _limits_for(self, request) except *:
        if request is not self._limits_of:
            self._limits = _search_limits(request)
            self._limits_of = request
        return self._limits

    def _search_many_native(self, list texts, request, searching=None, list labels=None):
        """The searches of search_many(), all in one call into the core without the GIL
        (a reader on another thread runs meanwhile): their MateResults."""
        cdef SearchLimits limits = self._limits_for(request)
        cdef vector[string] sfens
        cdef vector[SearchResult] results
        cdef vector[int64_t] c_labels
        cdef int64_t* c_searching = NULL
        cdef size_t k = 0
        cdef bint certify = request.certify
        cdef bint and_root = request.root_is_and_node_if_checked
        for sfen in texts:
            if type(sfen) is str:
                sfens.push_back(sfen.encode())
        if labels is not None:
            c_searching = <int64_t*><uintptr_t>searching
            for n, sfen in enumerate(texts):
                if type(sfen) is str:
                    c_labels.push_back(labels[n])
        with nogil:
            c_solve_many(self._solver[0], sfens, limits, results, c_searching, &c_labels if c_searching else NULL)
        cdef list found = []
        for sfen in texts:
            if type(sfen) is not str:
                found.append(MateResult("invalid", error=str(sfen)))
                continue
            found.append(_mate_result(results[k], sfen, certify, and_root))
            k += 1
        return found

    def _solve_native(self, sfen, request):
        """The search itself, without the GIL: its _Found (the MateResult is made on the
        caller's thread, its certification too)."""
        cdef string c_sfen = sfen.encode()
        cdef SearchLimits limits = self._limits_for(request)
        cdef _Found found = _Found.__new__(_Found)
        with nogil:
            found.r = self._solver.solve(c_sfen, limits)
        return found

    def _solve_interruptible(self, sfen, request):
        # The main thread waits while the search thread searches: a signal handler
        # (Ctrl-C) only runs between bytecodes, never inside a native call, so
        # searching here would hold Ctrl-C until the search ends.
        return _main_thread_searcher().run(lambda: self._solve_native(sfen, request),
                                           self.stop)
