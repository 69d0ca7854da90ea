// windows.h without its min/max macros and rarely used parts, for the files
// that call the Windows API (search_thread.h, zeroed.cpp). Its near and far
// macros break ordinary code: include this only where the API is called.
#pragma once

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX  // no min/max macros from windows.h
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#endif
