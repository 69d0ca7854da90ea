// A thread with a stack large enough for the search: mid() recurses once per
// ply (up to SearchLimits::max_ply, 4000) and some platforms give new threads
// 512 KB to 8 MB. The Python layer starts its search threads with the same
// 64 MB (usi_mate._core.SEARCH_THREAD_STACK).
#pragma once

#include <functional>
#include <utility>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX  // no min/max macros from windows.h
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <process.h>
#include <windows.h>
#else
#include <pthread.h>
#endif

namespace usi_mate {

class SearchThread {
 public:
  static constexpr size_t kStackBytes = size_t(64) << 20;

  SearchThread() = default;
  SearchThread(const SearchThread&) = delete;
  SearchThread& operator=(const SearchThread&) = delete;
  ~SearchThread() { join(); }

  // Runs fn on a new thread; false when the thread could not be created (the
  // caller then goes on without it). fn must not throw.
  bool start(std::function<void()> fn) {
    fn_ = std::move(fn);
#if defined(_WIN32)
    // std::thread cannot choose its stack: it gets the executable's default
    // reserve (2,000,000 bytes in python.exe and PyInstaller's bootloader),
    // and whether the 4000-ply cut fits in that depends on the compiler's
    // frame for mid() (336 bytes with mingw-w64 GCC 12 -O2, 2.6 KB with GCC 12
    // -O3 on Linux; MSVC's unmeasured). _beginthreadex reserves kStackBytes,
    // as pthreads do on POSIX; with STACK_SIZE_PARAM_IS_A_RESERVATION it is
    // address space only, committed as deep as the search goes.
    uintptr_t handle = _beginthreadex(nullptr, unsigned(kStackBytes), &SearchThread::entry, this,
                                      STACK_SIZE_PARAM_IS_A_RESERVATION, nullptr);
    thread_ = reinterpret_cast<HANDLE>(handle);
    running_ = handle != 0;
#else
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    pthread_attr_setstacksize(&attr, kStackBytes);
    running_ = pthread_create(&thread_, &attr, &SearchThread::entry, this) == 0;
    pthread_attr_destroy(&attr);
#endif
    return running_;
  }

  void join() {
    if (!running_) return;
#if defined(_WIN32)
    WaitForSingleObject(thread_, INFINITE);
    CloseHandle(thread_);
#else
    pthread_join(thread_, nullptr);
#endif
    running_ = false;
  }

 private:
#if defined(_WIN32)
  static unsigned __stdcall entry(void* self) {
    static_cast<SearchThread*>(self)->fn_();
    return 0;
  }
  HANDLE thread_ = nullptr;
#else
  static void* entry(void* self) {
    static_cast<SearchThread*>(self)->fn_();
    return nullptr;
  }
  pthread_t thread_{};
#endif
  std::function<void()> fn_;
  bool running_ = false;
};

}  // namespace usi_mate
