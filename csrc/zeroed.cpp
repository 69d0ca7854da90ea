// Zeroed memory for large tables (zeroed.h): mapped pages from the OS for
// large blocks, calloc for small ones.
#include "zeroed.h"

#include <cstdlib>

#if defined(_WIN32)
#include "win32.h"
#else
#include <sys/mman.h>
#endif

namespace usi_mate {

void* zeroed_alloc(size_t bytes) {
  if (bytes < kZeroedPagesFrom) return std::calloc(bytes ? bytes : 1, 1);
#if defined(_WIN32)
  return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
#else
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
#endif
}

void zeroed_free(void* p, size_t bytes) {
  if (!p) return;
  if (bytes < kZeroedPagesFrom) return std::free(p);
#if defined(_WIN32)
  VirtualFree(p, 0, MEM_RELEASE);
#else
  munmap(p, bytes);
#endif
}

}  // namespace usi_mate
