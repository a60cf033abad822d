#define _GNU_SOURCE
#include "utensil_support.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <limits.h>
#include <linux/openat2.h>

#define UTENSIL_SLOTS 256
#define UTENSIL_KEY_MAX 256

/* Each decoding thread owns one slot; the handler reads them with only async-signal-safe calls. */
struct slot {
    atomic_int active;
    char key[UTENSIL_KEY_MAX];
};

static struct slot slots[UTENSIL_SLOTS];
static atomic_int log_fd = -1;
static _Thread_local int my_slot = -1;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define FATAL_COUNT (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction previous[FATAL_COUNT];

static void write_key(int fd, const char *key) {
    size_t length = strnlen(key, UTENSIL_KEY_MAX - 1);
    struct { const char *p; size_t n; } parts[2] = {{key, length}, {"\n", 1}};
    for (int i = 0; i < 2; i++) {
        const char *p = parts[i].p;
        size_t n = parts[i].n;
        while (n > 0) {
            ssize_t written = write(fd, p, n);
            if (written < 0) { if (errno == EINTR) continue; return; }
            p += written;
            n -= (size_t)written;
        }
    }
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
    int fd = atomic_load(&log_fd);
    if (fd >= 0) {
        /* A fault on a decoding thread blames that thread's drop. A signal sent from outside
           (for example systemd's watchdog SIGABRT for a hung decoder), or a fault on a thread
           that is not decoding a drop itself (a codec's own worker: libde265 and dav1d decode
           HEIC and AVIF on threads they start), blames every drop being decoded, since one of
           them caused it: each is counted once, and only a second crash sets a drop aside. */
        int from_outside = info != NULL && info->si_code <= 0 && info->si_pid != getpid();
        if (!from_outside && my_slot >= 0 && atomic_load(&slots[my_slot].active) == 1) {
            write_key(fd, slots[my_slot].key);
        } else {
            for (int i = 0; i < UTENSIL_SLOTS; i++) {
                if (atomic_load(&slots[i].active) == 1) write_key(fd, slots[i].key);
            }
        }
    }
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (fatal_signals[i] != sig) continue;
        struct sigaction *old = &previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
            sigaction(sig, old, NULL);
            old->sa_sigaction(sig, info, context);
            return;
        }
        if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler != NULL) {
            sigaction(sig, old, NULL);
            old->sa_handler(sig);
            return;
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void utensil_crashguard_install(int crash_log_fd) {
    atomic_store(&log_fd, crash_log_fd);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        sigaction(fatal_signals[i], &action, &previous[i]);
    }
}

void utensil_crashguard_enter(const char *key) {
    if (my_slot < 0) {
        for (int i = 0; i < UTENSIL_SLOTS; i++) {
            int expected = 0;
            /* -1 marks a slot as owned but idle. */
            if (atomic_compare_exchange_strong(&slots[i].active, &expected, -1)) {
                my_slot = i;
                break;
            }
        }
        if (my_slot < 0) return; /* More decoding threads than slots: this one goes unguarded. */
    }
    strncpy(slots[my_slot].key, key, UTENSIL_KEY_MAX - 1);
    slots[my_slot].key[UTENSIL_KEY_MAX - 1] = '\0';
    atomic_store(&slots[my_slot].active, 1);
}

void utensil_crashguard_leave(void) {
    if (my_slot >= 0) atomic_store(&slots[my_slot].active, -1);
}

void utensil_crashguard_simulate_crash(void) {
    raise(SIGSEGV);
}

static void *raise_sigsegv(void *unused) {
    (void)unused;
    raise(SIGSEGV);
    return NULL;
}

void utensil_crashguard_simulate_crash_on_codec_thread(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, raise_sigsegv, NULL) == 0) pthread_join(thread, NULL);
}

int utensil_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}

int utensil_renameat_noreplace(int from_dir, const char *from, int to_dir, const char *to) {
    return (int)syscall(SYS_renameat2, from_dir, from, to_dir, to, 1 /* RENAME_NOREPLACE */);
}

/* 1 once openat2 answered ENOSYS: from then on the walk is used at once. */
static atomic_int openat2_missing = 0;

/* One step: `path` (shorter than PATH_MAX) beneath `dirfd`. */
static int open_beneath_once(int dirfd, const char *path, int flags, unsigned int mode) {
    if (!atomic_load(&openat2_missing)) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (unsigned long long)(flags | O_CLOEXEC);
        how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        for (;;) {
            long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
            if (fd >= 0) return (int)fd;
            if (errno == EINTR || errno == EAGAIN) continue; /* EAGAIN: a rename raced the lookup */
            if (errno != ENOSYS) return -1;
            atomic_store(&openat2_missing, 1);
            break;
        }
    }
    /* The walk: every folder component with O_NOFOLLOW, `..` refused, then the last one. */
    int current = dirfd;
    const char *cursor = path;
    for (;;) {
        while (*cursor == '/') cursor++;
        const char *slash = strchr(cursor, '/');
        const char *after = slash;
        if (after != NULL) while (*after == '/') after++;
        int last = slash == NULL || *after == '\0';
        size_t length = slash == NULL ? strlen(cursor) : (size_t)(slash - cursor);
        char component[NAME_MAX + 1];
        if (length > NAME_MAX) { if (current != dirfd) close(current); errno = ENAMETOOLONG; return -1; }
        memcpy(component, cursor, length);
        component[length] = '\0';
        if (strcmp(component, "..") == 0) { if (current != dirfd) close(current); errno = EXDEV; return -1; }
        if (length == 0) strcpy(component, ".");
        int next = last
            ? openat(current, component, flags | O_NOFOLLOW | O_CLOEXEC, mode)
            : openat(current, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        if (current != dirfd) close(current);
        if (next < 0) { errno = saved; return -1; }
        if (last) return next;
        current = next;
        cursor = after;
    }
}

int utensil_open_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
    if (path[0] == '/') { errno = EXDEV; return -1; }
    /* A path too long for one system call is resolved a folder at a time, up to a slash. */
    int current = dirfd;
    const char *rest = path;
    while (strlen(rest) >= PATH_MAX) {
        const char *cut = rest + PATH_MAX - 1;
        while (cut > rest && *cut != '/') cut--;
        if (cut == rest) { if (current != dirfd) close(current); errno = ENAMETOOLONG; return -1; }
        char part[PATH_MAX];
        memcpy(part, rest, (size_t)(cut - rest));
        part[cut - rest] = '\0';
        int next = open_beneath_once(current, part, O_PATH | O_DIRECTORY, 0);
        int saved = errno;
        if (current != dirfd) close(current);
        if (next < 0) { errno = saved; return -1; }
        current = next;
        rest = cut + 1;
    }
    int fd = open_beneath_once(current, rest, flags, mode);
    int saved = errno;
    if (current != dirfd) close(current);
    errno = saved;
    return fd;
}

int utensil_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

#include <malloc.h>

void utensil_return_large_allocations(void) {
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
}

void utensil_return_free_memory(void) {
    malloc_trim(0);
}

int utensil_set_xattr(int fd, const char *name, const char *value) {
    return fsetxattr(fd, name, value, strlen(value), 0);
}

long utensil_get_xattr(int fd, const char *name, void *buffer, unsigned long size) {
    return (long)fgetxattr(fd, name, buffer, size);
}
