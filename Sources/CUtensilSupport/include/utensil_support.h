#ifndef UTENSIL_SUPPORT_H
#define UTENSIL_SUPPORT_H

#include <stddef.h>

/// Maps the decoding slots file `slots_fd` (grown to its size if shorter; kept open by the
/// mapping) and installs handlers for fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
/// SIGTRAP) that mark the drops to blame, then hand the signal on to the previous handler or
/// the default action. A slot marked decoding when the process dies, of any signal, SIGKILL
/// and the OOM killer included, stays marked in the file for the next start. Once per process (later calls do nothing).
/// 0 on success, -1 with errno.
int utensil_crashguard_install(int slots_fd);

/// The number of slots.
int utensil_crashguard_slot_count(void);

/// The key of the drop slot `index` was decoding when an earlier process died, or NULL;
/// `*blamed` is 1 when a fatal-signal handler blamed it (a fault on its thread, or a signal
/// sent from outside), 0 when the process died without one running (SIGKILL, the OOM killer,
/// a power cut).
const char *utensil_crashguard_interrupted(int index, int *blamed);

/// Clears slot `index` once its interrupted decode has been recorded.
void utensil_crashguard_forget(int index);

/// Marks the calling thread as decoding the drop `key` (at most 255 bytes, copied).
void utensil_crashguard_enter(const char *key);

/// Marks the calling thread as no longer decoding.
void utensil_crashguard_leave(void);

/// `renameat2(…, RENAME_NOREPLACE)`: 0 on success, -1 with errno (EEXIST when the target exists).
int utensil_rename_noreplace(const char *from, const char *to);

/// `renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE)`, relative to held folders.
int utensil_renameat_noreplace(int from_dir, const char *from, int to_dir, const char *to);

/// Opens `path` (relative, never absolute) beneath the folder `dirfd` without following a
/// symbolic link in any component and without leaving the folder (`..` is refused): `openat2`
/// with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`, or, where the kernel
/// lacks it, a walk of one `openat(O_NOFOLLOW)` per component. Paths longer than `PATH_MAX`
/// are resolved part by part. `O_CLOEXEC` is always added. Returns the descriptor, or -1 with
/// errno (ELOOP for a symbolic link, EXDEV for a way out, ENOTDIR, ENOENT …).
int utensil_open_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// Starts writing a file's dirty pages to disk without waiting (`sync_file_range` with
/// `SYNC_FILE_RANGE_WRITE`): a later `fsync` then has less to wait for. Only a hint.
int utensil_start_writeback(int fd);

/// Makes glibc keep freed memory in its heap until `utensil_return_free_memory` gives it back:
/// allocations up to 8 MiB (a phone photo's bytes, its decoded planes, its preview) come from
/// the heap, which is not trimmed on `free`, and every thread shares the one heap (call it
/// before other threads exist). A burst's photos then reuse one another's buffers instead of
/// faulting in fresh zeroed pages for each (about 1,300 page faults, 3 ms of CPU, for a 12 MP
/// JPEG); the daemon trims when its workers go idle, so that its footprint at rest does not
/// keep a burst's peak. Larger allocations (a big PNG's pixels) still get their own mapping,
/// returned when freed, so that they leave no holes in the heap.
void utensil_keep_freed_memory_until_trimmed(void);

/// Gives the kernel back every whole free page in glibc's heaps (malloc_trim): when the
/// ingest workers go idle after a burst, and after work that made many small allocations at
/// once, such as start-up reconciliation of a million rows, so that the daemon at rest does
/// not keep their peak.
void utensil_return_free_memory(void);

/// `fsetxattr(fd, name, value, strlen(value), 0)` (sys/xattr.h is not in Swift's Glibc module).
int utensil_set_xattr(int fd, const char *name, const char *value);

/// `fgetxattr(fd, name, buffer, size)`: the value's length, or -1 with errno.
long utensil_get_xattr(int fd, const char *name, void *buffer, unsigned long size);

/// Starts the ingest hook `path` (no shell, no PATH search) with `argv` and `envp` (both
/// NULL-terminated) as the leader of a new session, and so of a process group that it can never
/// leave (a session leader may change neither), so that it and its children can be stopped
/// together and told from the daemon's own children: standard input from `input_fd`, standard output and error into
/// `output_fd`, every other descriptor closed, every signal at its default action and none
/// blocked (the daemon ignores or blocks some). 0 with `*pid` set, or an errno value (also
/// when the program cannot be executed).
int utensil_spawn_hook(const char *path, char *const argv[], char *const envp[], int input_fd, int output_fd, int *pid);

/// An anonymous memory file (close-on-exec), for a hook's standard input: written whole
/// before the hook starts, so the daemon never waits for a hook to read. -1 with errno.
int utensil_memfd(const char *name);

/// `pipe2(fds, O_CLOEXEC)`: a pipe whose ends no child inherits unless it is handed them. 0 or -1 with errno.
int utensil_pipe_cloexec(int fds[2]);

/// A descriptor that polls readable once process `pid` (a child) has exited. -1 with errno.
int utensil_pidfd_open(int pid);

/// `pidfd_send_signal(pidfd, signal, NULL, 0)`: signals exactly the process `pidfd` was opened
/// for, never a later one given the same pid. 0 or -1 with errno (ESRCH once it has been reaped).
int utensil_pidfd_send_signal(int pidfd, int signal);

/// `prctl(PR_SET_CHILD_SUBREAPER, 1)`: a descendant whose parent exits is re-parented to this
/// process instead of to init. 0 or -1 with errno.
int utensil_become_subreaper(void);

#endif
