# Declarations of the C++ core (csrc/) used by _core.pyx. Declarations only.
from libc.stddef cimport size_t
from libc.stdint cimport int64_t, uint32_t, uint64_t, uintptr_t
from libcpp.string cimport string
from libcpp.pair cimport pair
from libcpp.vector cimport vector


cdef extern from "bitboard.h" namespace "usi_mate":
    const char* BITBOARD_KIND


cdef extern from "position.h" namespace "usi_mate":
    cdef cppclass CPosition "usi_mate::Position":
        CPosition() except +
        void set_sfen(const string&) except +
        string sfen()
        uint64_t board_key()
        uint64_t full_key()
        bint in_check()
        int ply_from_root()
        void undo_move()


cdef extern from "movegen.h" namespace "usi_mate":
    uint64_t c_perft "usi_mate::perft"(CPosition&, int) nogil


cdef extern from "api.h" namespace "usi_mate::api":
    vector[string] legal_moves(const CPosition&) except +
    vector[string] check_moves(const CPosition&) except +
    vector[string] evasions(const CPosition&) except +
    void push_usi(CPosition&, const string&) except +
    bint gives_check(const CPosition&, const string&) except +
    bint is_mate(const CPosition&)
    int hand_count_of(const CPosition&, int, int)
    int side_to_move(const CPosition&)
    string piece_str(const CPosition&, int)
    string last_move_usi(const CPosition&)


cdef extern from "types.h" namespace "usi_mate":
    ctypedef uint32_t Move "usi_mate::Move"


cdef extern from "position.h" namespace "usi_mate":
    string move_to_usi(Move)


cdef extern from "search_types.h" namespace "usi_mate":
    # (Their values are _STATUS's and _STOP_REASON's indices in _core.pyx.)
    cdef enum class MateStatus_c "usi_mate::MateStatus":
        pass

    cdef enum class StopReason_c "usi_mate::StopReason":
        pass

    # (Its values are POST_SEARCH_LEVELS' in _core.pyx: 0 None, 1 UpperBound, 2 MinLength.)
    cdef enum class PostSearchLevel_c "usi_mate::PostSearchLevel":
        pass

    # What a caller asks of one search (csrc/search_types.h); filled in one place,
    # _search_limits in _core.pyx, from the validated SearchRequest.
    cdef cppclass SearchLimits "usi_mate::SearchLimits":
        SearchLimits()
        uint64_t nodes_limit
        uint64_t time_limit_ms
        bint root_is_and_node_if_checked
        int max_ply
        int max_length
        PostSearchLevel_c post_search
        unsigned int min_length_effort
        bint ignore_futile_interpositions
        uint64_t certify_nodes
        uint64_t futility_node_cap
        # (test: TestHooks, set only by the tests' own extension through
        # csrc/testing.h, never from here.)

    const unsigned int kDefaultMinLengthEffort "usi_mate::kDefaultMinLengthEffort"
    const uint64_t kMinLengthMinNodes "usi_mate::kMinLengthMinNodes"
    uint64_t min_length_share_c "usi_mate::min_length_share"(uint64_t first_nodes, unsigned int effort)
    const int kPostSearchLevelCount "usi_mate::kPostSearchLevelCount"
    const char* const kPostSearchLevelNames "usi_mate::kPostSearchLevelNames"[]
    const int kMaxPly "usi_mate::kMaxPly"
    const uint64_t kDefaultHashMb "usi_mate::kDefaultHashMb"
    const uint64_t kDefaultCertifyNodes "usi_mate::kDefaultCertifyNodes"

    # What a search returns (csrc/search_types.h), read in one place: _mate_result in
    # _core.pyx makes it the MateResult (fields used there only).
    cdef cppclass DisproofCertificate "usi_mate::DisproofCertificate":
        int status  # (an enum: 0 none, 1 built, 2 incomplete, 3 failed)
        vector[pair[string, Move]] refutations
        uint64_t nodes
        string failed_at
        vector[Move] failed_path

    cdef cppclass RefineStats_c "usi_mate::RefineStats":
        uint64_t positions
        uint64_t nodes
        int passes
        uint64_t tiny_nodes
        uint64_t reprove_nodes
        uint64_t judge_nodes
        uint64_t along_nodes

    cdef cppclass SearchResult "usi_mate::SearchResult":
        MateStatus_c status
        StopReason_c stop_reason
        vector[Move] moves
        uint64_t nodes
        uint64_t line_nodes
        uint64_t time_ms
        int hashfull
        string error
        int min_length
        int shortest_possible
        StopReason_c length_stop
        DisproofCertificate certificate
        RefineStats_c refine


cdef extern from "futility.h" namespace "usi_mate":
    const uint64_t kFutilityNodeCap "usi_mate::kFutilityNodeCap"
    const uint64_t kUncappedNodeCap "usi_mate::kUncappedNodeCap"
    const unsigned short kUncappedMaxLength "usi_mate::kUncappedMaxLength"


cdef extern from "search_thread.h" namespace "usi_mate":
    const size_t kSearchThreadStack "usi_mate::SearchThread::kStackBytes"


cdef extern from "solver.h" namespace "usi_mate":
    cdef struct SearchProgress_c "usi_mate::SearchProgress":
        uint64_t nodes
        uint64_t time_ms
        int hashfull
        unsigned int proof_number
        unsigned int disproof_number
        int max_ply
        unsigned short mate_length
        unsigned short shortest_possible
        const vector[Move]* moves

    ctypedef void (*ProgressFn)(void* ctx, const SearchProgress_c& progress) noexcept

    cdef cppclass CSolver "usi_mate::Solver":
        CSolver(uint64_t hash_mb) except +
        void resize(uint64_t hash_mb) except +
        void set_threads(int n) except +
        int threads()
        void clear()
        void stop() nogil
        void reset_stop() nogil
        bint stop_requested() nogil
        void set_progress(ProgressFn fn, void* ctx, uint64_t interval_ms)
        SearchResult solve(const string& sfen, const SearchLimits& limits) except + nogil
        int hashfull()


cdef extern from "api.h" namespace "usi_mate::api":
    void c_solve_many "usi_mate::api::solve_many"(CSolver&, const vector[string]&, const SearchLimits&,
                                                  vector[SearchResult]&, int64_t*, const vector[int64_t]*) except + nogil

    cdef struct ProbeOutput:
        int status
        vector[int] hand
        int mate_len

    ProbeOutput c_probe "usi_mate::api::probe"(const CSolver&, const string&, bint) except +
