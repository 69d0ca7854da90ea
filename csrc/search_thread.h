// A thread with a stack large enough for the search: mid() recurses once per
// ply (up to SearchLimits::max_ply, 4000) and some platforms give new threads
// 512 KB to 8 MB. The Python layer starts its search threads with the same
// 64 MB (usi_mate._core.SEARCH_THREAD_STACK).
#pragma once

#include <functional>
#include <utility>

#if defined(_WIN32)
#include <thread>
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
    // std::thread cannot choose its stack; MSVC's default is 1 MB, which the
    // linker option /STACK does not change for new threads either. Windows
    // builds rely on the 4000-ply cut being far from that (about 200 bytes a
    // ply in mid()).
    try {
      thread_ = std::thread([this] { fn_(); });
      running_ = true;
    } catch (...) { running_ = false; }
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
    thread_.join();
#else
    pthread_join(thread_, nullptr);
#endif
    running_ = false;
  }

 private:
#if defined(_WIN32)
  std::thread thread_;
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
