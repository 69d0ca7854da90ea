#include "bitboard.h"

#include <initializer_list>
#include <utility>

namespace usi_mate {

Tables T;

namespace {
constexpr int DF[DIR_NB] = {0, 0, -1, 1, -1, 1, -1, 1};
constexpr int DR[DIR_NB] = {-1, 1, 0, 0, -1, 1, 1, -1};

bool on_board(int f, int r) { return f >= 0 && f < 9 && r >= 0 && r < 9; }

// Step pieces as (file, rank) offsets for black; white mirrors the rank.
Bitboard steps(Color c, Square s, std::initializer_list<std::pair<int, int>> offs) {
  Bitboard b;
  int sign = c == BLACK ? 1 : -1;
  for (auto [df, dr] : offs) {
    int f = file_of(s) + df, r = rank_of(s) + dr * sign;
    if (on_board(f, r)) b |= square_bb(make_square(f, r));
  }
  return b;
}
}  // namespace

void init_tables() {
  static bool done = false;
  if (done) return;
  for (Square s = 0; s < SQ_NB; ++s) {
    for (int d = 0; d < DIR_NB; ++d) {
      Bitboard b;
      for (int f = file_of(s) + DF[d], r = rank_of(s) + DR[d]; on_board(f, r); f += DF[d], r += DR[d])
        b |= square_bb(make_square(f, r));
      T.ray[s][d] = b;
    }
    for (Color c : {BLACK, WHITE}) {
      T.step[c][PAWN][s] = steps(c, s, {{0, -1}});
      T.step[c][KNIGHT][s] = steps(c, s, {{-1, -2}, {1, -2}});
      T.step[c][SILVER][s] = steps(c, s, {{-1, -1}, {0, -1}, {1, -1}, {-1, 1}, {1, 1}});
      T.step[c][GOLD][s] = steps(c, s, {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}});
      T.step[c][KING][s] = steps(c, s, {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}});
      for (int pt : {PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER}) T.step[c][pt][s] = T.step[c][GOLD][s];
    }
  }
  for (Square a = 0; a < SQ_NB; ++a)
    for (int d = 0; d < DIR_NB; ++d)
      for (Bitboard r = T.ray[a][d]; r;) {
        Square b = r.pop_lsb();
        T.between[a][b] = T.ray[a][d] & T.ray[b][d ^ 1];
        T.line[a][b] = T.ray[a][d] | T.ray[a][d ^ 1] | square_bb(a);
      }
  for (int i = 0; i < 9; ++i) {
    T.file[i] = Bitboard();
    T.rank[i] = Bitboard();
    for (int j = 0; j < 9; ++j) {
      T.file[i] |= square_bb(make_square(i, j));
      T.rank[i] |= square_bb(make_square(j, i));
    }
  }
  T.zone[BLACK] = T.rank[0] | T.rank[1] | T.rank[2];
  T.zone[WHITE] = T.rank[6] | T.rank[7] | T.rank[8];
  T.no_move_ranks[BLACK][0] = T.rank[0];
  T.no_move_ranks[BLACK][1] = T.rank[0] | T.rank[1];
  T.no_move_ranks[WHITE][0] = T.rank[8];
  T.no_move_ranks[WHITE][1] = T.rank[8] | T.rank[7];
  done = true;
}

}  // namespace usi_mate
