#include "position.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

namespace usi_mate {

namespace zobrist {
uint64_t psq[PIECE_NB][SQ_NB];
uint64_t side;
uint64_t hand[COLOR_NB][PIECE_TYPE_NB];
}  // namespace zobrist

const char* Position::kStartSfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

namespace {
// SplitMix64: a fixed seed gives the same keys on every platform and run.
uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const char* kPieceChars = " PLNSBRGK";  // index = unpromoted piece type
constexpr char kPieceLetters[] = " plnsbrgk";
const char* kPieceNames[8] = {"", "pawn", "lance", "knight", "silver", "bishop", "rook", "gold"};
// Pieces per type in a full set (both colours together); kings per colour.
constexpr int kFullSet[8] = {0, 18, 4, 4, 4, 2, 2, 4};

// A loop over the eight letters, not strchr and toupper: a bulk caller's mate in
// one parses one SFEN a search.
// The piece type of each letter (either case), NO_PIECE_TYPE for any other
// byte: a table, where a search along the letters cost a branch misprediction
// a piece and most of an SFEN's reading.
struct CharTypes {
  PieceType of[256];
  constexpr CharTypes() : of() {
    for (auto& t : of) t = NO_PIECE_TYPE;
    for (int pt = PAWN; pt <= KING; ++pt) {
      char lower = kPieceLetters[pt];
      of[static_cast<unsigned char>(lower)] = PieceType(pt);
      of[static_cast<unsigned char>(lower - 'a' + 'A')] = PieceType(pt);
    }
  }
};
constexpr CharTypes kCharTypes;

PieceType type_from_char(char ch) { return kCharTypes.of[static_cast<unsigned char>(ch)]; }

Color color_of_char(char ch) { return ch >= 'A' && ch <= 'Z' ? BLACK : WHITE; }

// The characters std::isspace accepts in the "C" locale, without the locale lookup.
bool is_space(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }
}  // namespace

void init_core() {
  static bool done = false;
  if (done) return;
  init_tables();
  uint64_t seed = 0x5eed0f05105417e5ULL;
  for (auto& row : zobrist::psq)
    for (auto& k : row) k = splitmix(seed);
  for (int c = 0; c < 2; ++c)
    for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) zobrist::hand[c][pt] = splitmix(seed);
  // The side key is an odd number in bit 0 only, so board_key & 1 tells the side to move.
  zobrist::side = 1;
  for (auto& row : zobrist::psq)
    for (auto& k : row) k &= ~1ULL;
  done = true;
}

Position::Position() {
  init_core();
  states_.reserve(1024);
  set_sfen(kStartSfen);
}

void Position::clear() {
  for (auto& p : board_) p = NO_PIECE;
  for (auto& b : by_type_) b = Bitboard();
  by_color_[0] = by_color_[1] = occ_ = Bitboard();
  hand_[0] = hand_[1] = HAND_ZERO;
  king_sq_[0] = king_sq_[1] = SQ_NONE;
  side_ = BLACK;
  start_ply_ = 1;
  states_.clear();
}

void Position::put_piece(Piece p, Square s) {
  board_[s] = p;
  Bitboard b = square_bb(s);
  by_type_[type_of(p)] |= b;
  by_color_[color_of(p)] |= b;
  occ_ |= b;
  if (type_of(p) == KING) king_sq_[color_of(p)] = s;
}

void Position::remove_piece(Square s) {
  Piece p = board_[s];
  Bitboard b = square_bb(s);
  by_type_[type_of(p)] ^= b;
  by_color_[color_of(p)] ^= b;
  occ_ ^= b;
  board_[s] = NO_PIECE;
  if (type_of(p) == KING) king_sq_[color_of(p)] = SQ_NONE;
}

namespace {
// A board field read: the piece on each square and the bitboards a Position
// keeps, filled as the field is read and copied in whole once it has been checked.
struct ParsedBoard {
  Piece on[SQ_NB];
  Bitboard by_type[PIECE_TYPE_NB];
  Bitboard by_color[COLOR_NB];
  Square king[COLOR_NB] = {SQ_NONE, SQ_NONE};
};

// The board field into b and counts (pieces by unpromoted type, kings apart: at
// most one a side).
void parse_board_field(std::string_view board, ParsedBoard& b, int (&counts)[8]) {
  for (auto& p : b.on) p = NO_PIECE;
  int kings[2] = {0, 0};
  int rank = 0, file = 8;  // file index 8 = file 9, read left to right
  bool promote = false;
  for (size_t i = 0; i < board.size(); ++i) {
    char ch = board[i];
    if (ch == '/') {
      if (promote) throw std::invalid_argument("'+' not followed by a piece in the board field");
      if (file != -1)
        throw std::invalid_argument("rank " + std::to_string(rank + 1) + " of the board does not have 9 squares");
      if (++rank > 8) throw std::invalid_argument("the board has more than 9 ranks");
      file = 8;
    } else if (ch >= '1' && ch <= '9') {
      if (promote) throw std::invalid_argument("'+' must be followed by a piece letter");
      file -= ch - '0';
      if (file < -1)
        throw std::invalid_argument("rank " + std::to_string(rank + 1) + " of the board has more than 9 squares");
    } else if (ch == '+') {
      if (promote) throw std::invalid_argument("'++' in the board field");
      promote = true;
    } else {
      PieceType pt = type_from_char(ch);
      if (pt == NO_PIECE_TYPE)
        throw std::invalid_argument(std::string("unknown piece letter '") + ch + "' in the board field");
      if (file < 0)
        throw std::invalid_argument("rank " + std::to_string(rank + 1) + " of the board has more than 9 squares");
      Color c = color_of_char(ch);
      if (promote) {
        if (!can_promote(pt)) throw std::invalid_argument(std::string("a '") + ch + "' cannot be promoted");
        pt = promoted(pt);
        promote = false;
      }
      if (pt == KING) {
        if (++kings[c] > 1)
          throw std::invalid_argument(std::string("more than one ") + (c == BLACK ? "black" : "white") + " king");
      } else {
        ++counts[hand_type(pt)];
      }
      Square sq = make_square(file, rank);
      b.on[sq] = make_piece(c, pt);
      b.by_type[pt] |= square_bb(sq);
      b.by_color[c] |= square_bb(sq);
      if (pt == KING) b.king[c] = sq;
      --file;
    }
  }
  if (promote) throw std::invalid_argument("'+' at the end of the board field");
  if (rank != 8 || file != -1) throw std::invalid_argument("the board field must have 9 ranks of 9 squares");
}

Color parse_side_field(std::string_view side) {
  if (side != "b" && side != "w")
    throw std::invalid_argument("side to move must be 'b' or 'w', not '" + std::string(side) + "'");
  return side == "b" ? BLACK : WHITE;
}

// The hands field ("-" or counted piece letters) into h, adding to counts.
void parse_hands_field(std::string_view hands, Hand (&h)[2], int (&counts)[8]) {
  h[BLACK] = h[WHITE] = HAND_ZERO;
  if (hands == "-") return;
  int n = 0;
  bool has_n = false;
  for (char ch : hands) {
    if (ch >= '0' && ch <= '9') {
      n = n * 10 + (ch - '0');
      has_n = true;
      if (n > 18) throw std::invalid_argument("hand count too large in '" + std::string(hands) + "'");
      continue;
    }
    PieceType pt = type_from_char(ch);
    if (pt == NO_PIECE_TYPE || pt == KING)
      throw std::invalid_argument(std::string("bad piece '") + ch + "' in the hands field '" + std::string(hands) +
                                  "'");
    if (has_n && n == 0) throw std::invalid_argument("zero count in the hands field '" + std::string(hands) + "'");
    int k = has_n ? n : 1;
    Color c = color_of_char(ch);
    if (hand_count(h[c], pt) + k > HAND_MAX[pt])
      throw std::invalid_argument("too many pieces of one type in the hands field '" + std::string(hands) + "'");
    h[c] = hand_add(h[c], pt, k);
    counts[pt] += k;
    n = 0;
    has_n = false;
  }
  if (has_n) throw std::invalid_argument("hands field '" + std::string(hands) + "' ends with a number");
}

// Board and hands together hold no more of a type than a full set.
void check_piece_counts(const int (&counts)[8]) {
  for (int pt = PAWN; pt < KING; ++pt)
    if (counts[pt] > kFullSet[pt])
      throw std::invalid_argument(std::string("more ") + kPieceChars[pt] + " pieces than a full set has (" +
                                  std::to_string(counts[pt]) + " > " + std::to_string(kFullSet[pt]) + ")");
}

// Pieces that could never move again, and two unpromoted pawns of one side on
// a file: no game reaches such a board, and the move generator assumes neither.
// Only the placed squares are looked at; the error names the lowest square, or
// the first side and file, as a scan of the whole board would.
void check_reachable_board(const ParsedBoard& b) {
  Bitboard dead;
  for (Color c : {BLACK, WHITE})
    dead |= b.by_color[c] & (((b.by_type[PAWN] | b.by_type[LANCE]) & T.no_move_ranks[c][0]) |
                             (b.by_type[KNIGHT] & T.no_move_ranks[c][1]));
  if (dead) {
    Square sq = dead.lsb();
    Piece p = b.on[sq];
    throw std::invalid_argument(std::string(color_of(p) == BLACK ? "black " : "white ") + kPieceNames[type_of(p)] +
                                " on " + square_to_usi(sq) + " can never move (a dead piece)");
  }
  for (Color c : {BLACK, WHITE}) {
    Bitboard pawns = b.by_type[PAWN] & b.by_color[c];
    for (int f = 0; f < 9 && pawns; ++f)
      if ((pawns & T.file[f]).more_than_one())
        throw std::invalid_argument(std::string("two unpromoted ") + (c == BLACK ? "black" : "white") +
                                    " pawns on file " + std::to_string(f + 1) + " (nifu)");
  }
}

// The move number saturates at kMaxMoveNumber, as sfen() writes it: every
// number either produces is read back (a GUI may send 999999998 and moves).
int parse_move_number(std::string_view ply) {
  if (ply.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("move number must be a non-negative integer, not '" + std::string(ply.substr(0, 20)) +
                                "'");
  int64_t n = 0;
  for (char ch : ply) n = std::min<int64_t>(n * 10 + (ch - '0'), Position::kMaxMoveNumber);
  return int(n);
}
}  // namespace

void Position::set_sfen(const std::string& input) {
  // The fields, split at whitespace as a stream would (a stringstream cost a
  // bulk caller's mate-in-one search a tenth of its time).
  // Views into the input, not copies: a board field is longer than a short string.
  std::string_view board, side, hands, ply, extra;
  std::string_view* fields[5] = {&board, &side, &hands, &ply, &extra};
  std::string_view text(input);
  int n = 0;
  for (size_t i = 0; i < text.size() && n < 5;) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    *fields[n++] = text.substr(i, j - i);
    i = j;
  }
  if (board.empty() || side.empty() || hands.empty())
    throw std::invalid_argument("SFEN needs at least three fields (board, side to move, hands): '" + input + "'");
  bool has_ply = !ply.empty();
  // Text after the move number is reported after the fields themselves are
  // checked: a space inside the board shifts every field, and the board's error
  // says so where "unexpected text" would name the move number.
  bool has_extra = !extra.empty();

  // Parse into locals first so that a failure leaves *this untouched.
  ParsedBoard b;
  int counts[8] = {0};
  parse_board_field(board, b, counts);
  Color to_move = parse_side_field(side);
  Hand h[2];
  parse_hands_field(hands, h, counts);
  check_piece_counts(counts);
  check_reachable_board(b);
  int start_ply = has_ply ? parse_move_number(ply) : 1;
  if (has_extra) throw std::invalid_argument("unexpected text after the SFEN: '" + std::string(extra) + "'");

  std::copy(std::begin(b.on), std::end(b.on), board_);
  std::copy(std::begin(b.by_type), std::end(b.by_type), by_type_);
  by_color_[BLACK] = b.by_color[BLACK];
  by_color_[WHITE] = b.by_color[WHITE];
  occ_ = b.by_color[BLACK] | b.by_color[WHITE];
  king_sq_[BLACK] = b.king[BLACK];
  king_sq_[WHITE] = b.king[WHITE];
  states_.clear();
  hand_[BLACK] = h[BLACK];
  hand_[WHITE] = h[WHITE];
  side_ = to_move;
  start_ply_ = start_ply;
  compute_state_from_scratch();
}

void Position::compute_state_from_scratch() {
  StateInfo s{};
  s.board_key = side_ == WHITE ? zobrist::side : 0;
  for (Bitboard occupied = occ_; occupied;) {
    Square sq = occupied.pop_lsb();
    s.board_key ^= zobrist::psq[board_[sq]][sq];
  }
  s.hand_key = 0;
  for (int c = 0; c < 2; ++c)
    for (int pt = PAWN; pt < KING; ++pt)
      s.hand_key += zobrist::hand[c][pt] * uint64_t(hand_count(hand_[c], PieceType(pt)));
  s.move = MOVE_NONE;
  s.captured = NO_PIECE;
  Square k = king_sq_[side_];
  s.checkers = k == SQ_NONE ? Bitboard() : attackers_to(~side_, k);
  states_.push_back(s);
}

std::string Position::sfen() const {
  std::string out;
  for (int r = 0; r < 9; ++r) {
    int empty = 0;
    for (int f = 8; f >= 0; --f) {
      Piece p = board_[make_square(f, r)];
      if (p == NO_PIECE) {
        ++empty;
        continue;
      }
      if (empty) {
        out += char('0' + empty);
        empty = 0;
      }
      PieceType pt = type_of(p);
      if (pt > KING) out += '+';
      char ch = kPieceChars[hand_type(pt)];
      out += color_of(p) == BLACK ? ch : char(std::tolower(ch));
    }
    if (empty) out += char('0' + empty);
    if (r < 8) out += '/';
  }
  out += side_ == BLACK ? " b " : " w ";
  std::string hands;
  static const PieceType order[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
  for (Color c : {BLACK, WHITE})
    for (PieceType pt : order) {
      int n = hand_count(hand_[c], pt);
      if (!n) continue;
      if (n > 1) hands += std::to_string(n);
      char ch = kPieceChars[pt];
      hands += c == BLACK ? ch : char(std::tolower(ch));
    }
  out += hands.empty() ? "-" : hands;
  out += " " + std::to_string(game_ply());
  return out;
}

namespace {

// Step (non-sliding) pieces of colour c attacking s: the attacks of a c-piece
// onto s are the reverse of them-piece attacks from s.
inline Bitboard step_attackers(const Position& pos, Color c, Square s) {
  Color them = ~c;
  return (((T.step[them][PAWN][s] & pos.pieces(PAWN)) | (T.step[them][KNIGHT][s] & pos.pieces(KNIGHT)) |
           (T.step[them][SILVER][s] & pos.pieces(SILVER))) &
          pos.pieces(c)) |
         (T.step[them][GOLD][s] & pos.golds(c)) |
         (king_attacks(s) & (pos.pieces(KING) | pos.pieces(HORSE) | pos.pieces(DRAGON)) & pos.pieces(c));
}

// Sliders of colour c attacking s, looked up ray by ray from s and only along
// rays that hold such a slider at all: one AND and a branch per empty ray,
// where building the rook, bishop and lance attack sets of s took nine bit
// scans every time, on a path hot enough to show in profiles: the legality of
// king moves in evasion generation (docs/DFPN.md, "Nodes and moves"). The
// nearest piece on a ray, counting the candidates as pieces so that an occ
// lacking some gives the same answer, attacks s when it is a candidate. kAny
// stops at the first attacker.
template <bool kAny>
inline Bitboard slider_attackers(const Position& pos, Color c, Square s, Bitboard occ) {
  Bitboard orth = pos.rook_likes(c), diag = pos.bishop_likes(c), lance = pos.pieces(c, LANCE);
  int lance_dir = c == BLACK ? DIR_S : DIR_N;  // from s towards a c-lance that could reach it
  Bitboard result;
  for (int dir = 0; dir < DIR_NB; ++dir) {
    Bitboard cand = dir < 4 ? orth : diag;
    if (dir == lance_dir) cand |= lance;
    Bitboard ray = T.ray[s][dir];
    if (!(ray & cand)) continue;
    Bitboard b = ray & (occ | cand);
    Square blocker = (dir & 1) ? b.lsb() : b.msb();
    if (cand.test(blocker)) {
      result |= square_bb(blocker);
      if (kAny) return result;
    }
  }
  return result;
}

}  // namespace

Bitboard Position::attackers_to(Color c, Square s, Bitboard occ) const {
  return step_attackers(*this, c, s) | slider_attackers<false>(*this, c, s, occ);
}

bool Position::attacked(Color c, Square s, Bitboard occ) const {
  return step_attackers(*this, c, s) || slider_attackers<true>(*this, c, s, occ);
}

Bitboard Position::blockers_for_king(Color kc) const {
  Square k = king_sq_[kc];
  if (k == SQ_NONE) return Bitboard();
  Color them = ~kc;
  // Sliders of the other colour that would attack k on an empty board.
  Bitboard snipers = (rook_rays(k) & rook_likes(them)) | (bishop_rays(k) & bishop_likes(them)) |
                     (T.ray[k][kc == BLACK ? DIR_N : DIR_S] & pieces(them, LANCE));
  Bitboard result;
  while (snipers) {
    Square s = snipers.pop_lsb();
    Bitboard b = T.between[s][k] & occ_;
    if (b && !b.more_than_one()) result |= b;
  }
  return result;
}

void Position::do_move(Move m) {
  StateInfo next;
  const StateInfo& prev = states_.back();
  next.board_key = prev.board_key ^ zobrist::side;
  next.hand_key = prev.hand_key;
  next.move = m;
  next.captured = NO_PIECE;
  Color us = side_;
  Square to = move_to(m);
  if (is_drop(m)) {
    PieceType pt = drop_type(m);
    hand_[us] = hand_sub(hand_[us], pt);
    next.hand_key -= zobrist::hand[us][pt];
    Piece p = make_piece(us, pt);
    put_piece(p, to);
    next.board_key ^= zobrist::psq[p][to];
  } else {
    Square from = move_from(m);
    Piece p = board_[from];
    Piece cap = board_[to];
    if (cap != NO_PIECE) {
      PieceType ht = hand_type(type_of(cap));
      remove_piece(to);
      next.board_key ^= zobrist::psq[cap][to];
      if (ht != KING) {  // a king is never captured in legal play; tolerate it in pseudo-legal tests
        hand_[us] = hand_add(hand_[us], ht);
        next.hand_key += zobrist::hand[us][ht];
      }
      next.captured = cap;
    }
    remove_piece(from);
    next.board_key ^= zobrist::psq[p][from];
    Piece np = is_promotion(m) ? Piece(p + PROMOTE) : p;
    put_piece(np, to);
    next.board_key ^= zobrist::psq[np][to];
  }
  side_ = ~us;
  Square k = king_sq_[side_];
  next.checkers = k == SQ_NONE ? Bitboard() : attackers_to(us, k);
  states_.push_back(next);
}

void Position::pass_hand_piece(Color from, PieceType pt) {
  StateInfo& s = states_.back();
  hand_[from] = hand_sub(hand_[from], pt);
  hand_[~from] = hand_add(hand_[~from], pt);
  s.hand_key += zobrist::hand[~from][pt] - zobrist::hand[from][pt];
}

uint64_t Position::board_key_after(Move m) const {
  uint64_t k = st().board_key ^ zobrist::side;
  Square to = move_to(m);
  if (is_drop(m)) return k ^ zobrist::psq[make_piece(side_, drop_type(m))][to];
  Square from = move_from(m);
  Piece p = board_[from];
  if (board_[to] != NO_PIECE) k ^= zobrist::psq[board_[to]][to];
  Piece np = is_promotion(m) ? Piece(p + PROMOTE) : p;
  return k ^ zobrist::psq[p][from] ^ zobrist::psq[np][to];
}

void Position::undo_move() {
  const StateInfo& s = states_.back();
  Move m = s.move;
  Color us = ~side_;
  Square to = move_to(m);
  if (is_drop(m)) {
    remove_piece(to);
    hand_[us] = hand_add(hand_[us], drop_type(m));
  } else {
    Square from = move_from(m);
    Piece np = board_[to];
    remove_piece(to);
    put_piece(is_promotion(m) ? Piece(np - PROMOTE) : np, from);
    if (s.captured != NO_PIECE) {
      put_piece(s.captured, to);
      PieceType ht = hand_type(type_of(s.captured));
      if (ht != KING) hand_[us] = hand_sub(hand_[us], ht);
    }
  }
  side_ = us;
  states_.pop_back();
}

bool Position::gives_check(Move m) const {
  Color us = side_, them = ~us;
  Square k = king_sq_[them];
  if (k == SQ_NONE) return false;
  Square to = move_to(m);
  PieceType pt = moved_after(m);
  if (is_drop(m)) return attacks(us, pt, to, occ_).test(k);
  Square from = move_from(m);
  Bitboard occ = (occ_ ^ square_bb(from)) | square_bb(to);
  if (pt != KING && attacks(us, pt, to, occ).test(k)) return true;
  // Discovered check: the origin blocked one of our sliders and the move leaves the line.
  if ((blockers_for_king(them) & by_color_[us]).test(from) && !aligned(from, to, k)) return true;
  return false;
}

Move Position::complete_move(Move m) const {
  if (is_drop(m)) return m;
  Piece p = board_[move_from(m)];
  if (p == NO_PIECE || color_of(p) != side_) return MOVE_NONE;
  return m | (Move(type_of(p)) << 16);
}

std::string square_to_usi(Square s) { return std::string(1, char('1' + file_of(s))) + char('a' + rank_of(s)); }

std::string move_to_usi(Move m) {
  if (m == MOVE_NONE) return "none";
  if (is_drop(m)) return std::string(1, kPieceChars[drop_type(m)]) + '*' + square_to_usi(move_to(m));
  return square_to_usi(move_from(m)) + square_to_usi(move_to(m)) + (is_promotion(m) ? "+" : "");
}

Move usi_to_move16(const std::string& s) {
  auto sq = [](char f, char r) -> Square {
    if (f < '1' || f > '9' || r < 'a' || r > 'i') return SQ_NONE;
    return make_square(f - '1', r - 'a');
  };
  if (s.size() == 4 && s[1] == '*') {
    PieceType pt = type_from_char(s[0]);
    if (pt == NO_PIECE_TYPE || pt == KING || !std::isupper(static_cast<unsigned char>(s[0]))) return MOVE_NONE;
    Square to = sq(s[2], s[3]);
    return to == SQ_NONE ? MOVE_NONE : make_drop(pt, to);
  }
  if (s.size() != 4 && !(s.size() == 5 && s[4] == '+')) return MOVE_NONE;
  Square from = sq(s[0], s[1]), to = sq(s[2], s[3]);
  if (from == SQ_NONE || to == SQ_NONE || from == to) return MOVE_NONE;
  Move m = make_move(from, to, NO_PIECE_TYPE);
  return s.size() == 5 ? m | MOVE_PROMOTE : m;
}

}  // namespace usi_mate
