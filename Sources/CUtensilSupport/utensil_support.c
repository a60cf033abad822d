#define _GNU_SOURCE
#include "utensil_support.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <limits.h>
#include <linux/openat2.h>

#define UTENSIL_SLOTS 256
#define UTENSIL_KEY_MAX 256

/* Each decoding thread owns one slot. The slots live in a file of the state folder mapped
   shared, so what they say survives any death of the process, SIGKILL and the OOM killer
   included (the kernel keeps the page): the next start reads which drops were being decoded.
   The signal handler only stores to them (async-signal-safe). */
struct slot {
    atomic_int active; /* 0 free, -1 owned by a thread and idle, 1 decoding `key`, 2 blamed for a crash */
    char key[UTENSIL_KEY_MAX];
};

static struct slot *slots;
static _Thread_local int my_slot = -1;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define FATAL_COUNT (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction previous[FATAL_COUNT];

static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
    /* A fault on a decoding thread blames that thread's drop alone: the other slots are let go,
       so their drops are simply decoded again. A signal sent from outside (for example systemd's
       watchdog SIGABRT for a hung decoder), or a fault on a thread that is not decoding a drop
       itself (a codec's own worker: libde265 and dav1d decode HEIC and AVIF on threads they
       start), blames every drop being decoded: each is counted once, and only a second crash
       sets a drop aside. A death no handler sees (SIGKILL, the OOM killer) leaves the slots
       decoding, and the next start decides with what systemd said of the run. */
    int from_outside = info != NULL && info->si_code <= 0 && info->si_pid != getpid();
    if (slots != NULL) {
        int own = !from_outside && my_slot >= 0 && atomic_load(&slots[my_slot].active) == 1;
        for (int i = 0; i < UTENSIL_SLOTS; i++) {
            if (atomic_load(&slots[i].active) != 1) continue;
            atomic_store(&slots[i].active, !own || i == my_slot ? 2 : -1);
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

int utensil_crashguard_install(int slots_fd) {
    if (slots != NULL) return 0; /* once per process */
    size_t size = sizeof(struct slot) * UTENSIL_SLOTS;
    struct stat status;
    if (fstat(slots_fd, &status) != 0) return -1;
    if ((size_t)status.st_size < size && ftruncate(slots_fd, (off_t)size) != 0) return -1;
    void *mapped = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, slots_fd, 0);
    if (mapped == MAP_FAILED) return -1;
    slots = mapped;
    /* The threads that owned slots are gone; what they were decoding (1) or were blamed for (2)
       stays for the start-up to read, anything else is free again. */
    for (int i = 0; i < UTENSIL_SLOTS; i++) {
        int state = atomic_load(&slots[i].active);
        if (state != 1 && state != 2) atomic_store(&slots[i].active, 0);
        slots[i].key[UTENSIL_KEY_MAX - 1] = '\0';
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        sigaction(fatal_signals[i], &action, &previous[i]);
    }
    return 0;
}

const char *utensil_crashguard_interrupted(int index, int *blamed) {
    if (slots == NULL || index < 0 || index >= UTENSIL_SLOTS) return NULL;
    int state = atomic_load(&slots[index].active);
    if (state != 1 && state != 2) return NULL;
    *blamed = state == 2;
    return slots[index].key;
}

int utensil_crashguard_slot_count(void) { return UTENSIL_SLOTS; }

void utensil_crashguard_forget(int index) {
    if (slots == NULL || index < 0 || index >= UTENSIL_SLOTS) return;
    int state = atomic_load(&slots[index].active);
    if (state == 1 || state == 2) atomic_compare_exchange_strong(&slots[index].active, &state, 0);
}

void utensil_crashguard_enter(const char *key) {
    if (slots == NULL) return;
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
    if (slots != NULL && my_slot >= 0) atomic_store(&slots[my_slot].active, -1);
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

void utensil_keep_freed_memory_until_trimmed(void) {
    mallopt(M_MMAP_THRESHOLD, 8 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
    mallopt(M_ARENA_MAX, 1);
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
