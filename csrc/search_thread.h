// A thread with a stack large enough for the search: mid() recurses once per
// ply (up to SearchLimits::max_ply, 4000) and some platforms give new threads
// 512 KB to 8 MB. The Python layer starts its search threads with the same
// 64 MB (usi_mate._core.SEARCH_THREAD_STACK). The thread is kept, parked,
// between the jobs handed to it (a helper's phases of one search and the next).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <new>
#include <utility>

#if defined(_WIN32)
#include <process.h>

#include "win32.h"
#else
#include <pthread.h>
#include <unistd.h>
#endif

namespace usi_mate {

class SearchThread {
 public:
  static constexpr size_t kStackBytes = size_t(64) << 20;

  SearchThread() = default;
  SearchThread(const SearchThread&) = delete;
  SearchThread& operator=(const SearchThread&) = delete;
  ~SearchThread() {
    if (inherited()) return;  // (the thread is the parent process's: nothing to end here)
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_all();
    join_thread();
  }

  // Hands fn to the thread and returns at once. The thread is created on the
  // first job and parked between jobs (a search's phases start one job each:
  // creating a thread per phase cost more than a short phase). False when the
  // thread could not be created (the caller then goes on without it). fn must
  // not throw; one job at a time (wait() before the next).
  bool run(std::function<void()> fn) {
    if (inherited()) forget_thread();
    if (!running_ && !start_thread()) return false;
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = std::move(fn);
      busy_ = true;
    }
    cv_.notify_all();
    return true;
  }
  // Blocks until the job handed to run() has finished (at once without one).
  void wait() {
    if (inherited()) return;
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !busy_; });
  }

 private:
  bool start_thread() {
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
    owner_ = getpid();
#endif
    return running_;
  }

  // A child of fork() has none of its parent's threads: a parked thread then
  // exists only in the parent, and this object starts over (with a fresh lock:
  // the parent's may have been held at the fork).
  bool inherited() const {
#if defined(_WIN32)
    return false;
#else
    return running_ && owner_ != getpid();
#endif
  }
  void forget_thread() {
    running_ = busy_ = quit_ = false;
    job_ = nullptr;
    // Built anew over the old ones without their destructors: the parent's
    // parked thread was waiting on them, and destroying a condition variable
    // with a waiter (one that does not exist here) would block for ever.
    new (&m_) std::mutex;
    new (&cv_) std::condition_variable;
  }

  void join_thread() {
    if (!running_) return;
#if defined(_WIN32)
    WaitForSingleObject(thread_, INFINITE);
    CloseHandle(thread_);
#else
    pthread_join(thread_, nullptr);
#endif
    running_ = false;
  }

  // The parked loop: a job when one is handed, until the destructor says quit.
  void serve() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return busy_ || quit_; });
      if (!busy_) return;  // quit, with no job pending
      std::function<void()> fn = std::move(job_);
      lock.unlock();
      fn();
      lock.lock();
      busy_ = false;
      cv_.notify_all();
    }
  }

#if defined(_WIN32)
  static unsigned __stdcall entry(void* self) {
    static_cast<SearchThread*>(self)->serve();
    return 0;
  }
  HANDLE thread_ = nullptr;
#else
  static void* entry(void* self) {
    static_cast<SearchThread*>(self)->serve();
    return nullptr;
  }
  pthread_t thread_{};
  pid_t owner_ = 0;  // the process that created the thread
#endif
  std::mutex m_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool busy_ = false;  // a job was handed and has not finished
  bool quit_ = false;
  bool running_ = false;
};

}  // namespace usi_mate
