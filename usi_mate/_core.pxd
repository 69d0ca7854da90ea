# Declarations of the C++ core (csrc/) used by _core.pyx. Declarations only.
from libc.stdint cimport uint64_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from "position.h" namespace "usi_mate":
    cdef cppclass CPosition "usi_mate::Position":
        CPosition() except +
        void set_sfen(const string&) except +
        string sfen()
        uint64_t board_key()
        uint64_t full_key()
        bool in_check()
        int ply_from_root()
        void undo_move()


cdef extern from "movegen.h" namespace "usi_mate":
    uint64_t c_perft "usi_mate::perft"(CPosition&, int) nogil


cdef extern from "api.h" namespace "usi_mate::api":
    vector[string] legal_moves(const CPosition&) except +
    vector[string] check_moves(const CPosition&) except +
    vector[string] evasions(const CPosition&) except +
    void push_usi(CPosition&, const string&) except +
    bool gives_check(const CPosition&, const string&) except +
    bool is_mate(const CPosition&)
    int hand_count_of(const CPosition&, int, int)
    int side_to_move(const CPosition&)
    string piece_str(const CPosition&, int)
    string last_move_usi(const CPosition&)
