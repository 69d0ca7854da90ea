// Compiles the MSVC branches of csrc/bitops.h and the two-halves Bitboard with clang in
// MSVC mode (_MSC_VER defined, clang's declarations of MSVC's intrinsics), the nearest
// check of the Windows build that Linux allows; .ci/run runs it when clang++ is there:
//   clang++ --target=x86_64-pc-windows-msvc -fms-extensions -fms-compatibility \
//     -std=c++17 -ffreestanding -nostdinc++ -Itests/msvc -Icsrc -fsyntax-only tests/msvc/check_bitops.cpp
#include "bitboard.h"

#ifndef _MSC_VER
#error "compile in MSVC mode"
#endif
static_assert(!USI_MATE_INT128, "MSVC builds the two-halves bitboard");

namespace usi_mate {
// Uses every member and every intrinsic wrapper, so each branch is compiled.
int use_everything(Bitboard b, Bitboard d, const void* p) {
  Bitboard c = (~b ^ square_bb(70)) | square_bb(3);
  c &= d;
  c |= b;
  c ^= d;
  prefetch(p);
  return c.popcount() + c.lsb() + c.msb() + c.pop_lsb() + c.more_than_one() + c.test(5) + int(c == b) + int(bool(c)) +
         int(mul_hi64(c.lo(), c.hi()));
}
}  // namespace usi_mate
