#ifndef UTENSIL_SUPPORT_H
#define UTENSIL_SUPPORT_H

#include <stddef.h>

/// Installs handlers for fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP)
/// that append the key of the drop being decoded (if any) to the open file `crash_log_fd`,
/// then hand the signal on to the previous handler or the default action.
/// A SIGKILL can never be caught, so an external `kill -9` is never recorded as a decoder crash.
void utensil_crashguard_install(int crash_log_fd);

/// Marks the calling thread as decoding the drop `key` (at most 255 bytes, copied).
void utensil_crashguard_enter(const char *key);

/// Marks the calling thread as no longer decoding.
void utensil_crashguard_leave(void);

/// Test hook: raises SIGSEGV on the calling thread, as a decoder bug would.
void utensil_crashguard_simulate_crash(void);

/// `renameat2(…, RENAME_NOREPLACE)`: 0 on success, -1 with errno (EEXIST when the target exists).
int utensil_rename_noreplace(const char *from, const char *to);

#endif
